//! Exact rational numbers for comparing stated values with computed ones.

use std::cmp::Ordering;
use std::fmt;

/// A reduced fraction `n / d` with `d > 0`, in `i128`: exact for every count a census
/// returns (counts and denominators below 2^63) and for decimals of up to 18 digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Q {
    /// Numerator (sign carried here).
    pub n: i128,
    /// Denominator, positive.
    pub d: i128,
}

fn gcd(a: i128, b: i128) -> i128 {
    i128::try_from(crate::games::count::gcd(a.unsigned_abs(), b.unsigned_abs())).unwrap_or(1).max(1)
}

impl Q {
    /// `n / d`, reduced. `d == 0` gives `None`.
    pub fn new(n: i128, d: i128) -> Option<Q> {
        if d == 0 {
            return None;
        }
        let g = gcd(n, d);
        let s = if d < 0 { -1 } else { 1 };
        Some(Q { n: s * n / g, d: s * d / g })
    }

    /// The integer `n`.
    pub fn int(n: i128) -> Q {
        Q { n, d: 1 }
    }

    /// True when the value is an integer.
    pub fn is_integer(self) -> bool {
        self.d == 1
    }

    /// `self × 10^k` rounded half to even, as an integer (`None` on overflow).
    pub fn round_scaled(self, k: u32) -> Option<i128> {
        let x = self.n.checked_mul(10i128.checked_pow(k)?)?;
        let q = x.div_euclid(self.d);
        let r = x.rem_euclid(self.d);
        Some(match (2 * r).cmp(&self.d) {
            Ordering::Less => q,
            Ordering::Greater => q + 1,
            Ordering::Equal => {
                if q % 2 == 0 {
                    q
                } else {
                    q + 1
                }
            }
        })
    }

    /// |self − other| compared with |self − third|, exactly.
    pub fn closer(self, a: Q, b: Q) -> Ordering {
        let da = (self - a).abs();
        let db = (self - b).abs();
        da.cmp(&db)
    }

    /// Absolute value.
    pub fn abs(self) -> Q {
        Q { n: self.n.abs(), d: self.d }
    }

    /// An approximate `f64`, for display only.
    pub fn to_f64(self) -> f64 {
        self.n as f64 / self.d as f64
    }
}

impl std::ops::Sub for Q {
    type Output = Q;
    fn sub(self, o: Q) -> Q {
        Q::new(self.n * o.d - o.n * self.d, self.d * o.d).unwrap_or(Q::int(0))
    }
}

impl PartialOrd for Q {
    fn partial_cmp(&self, o: &Q) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Q {
    fn cmp(&self, o: &Q) -> Ordering {
        (self.n * o.d).cmp(&(o.n * self.d))
    }
}

impl fmt::Display for Q {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.d == 1 {
            write!(f, "{}", group(self.n))
        } else {
            write!(f, "{}/{} (≈ {:.4})", self.n, self.d, self.to_f64())
        }
    }
}

/// `n` with `,` between groups of three digits: 27215 → "27,215".
pub fn group(n: i128) -> String {
    group_with(n, ",")
}

/// `n` with `sep` between groups of three digits.
pub fn group_with(n: i128, sep: &str) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push_str(sep);
        }
        out.push(c);
    }
    if n < 0 {
        format!("−{out}")
    } else {
        out
    }
}

/// The fractions p/q with 1 ≤ q ≤ `max_den` closest to `v` (all of them when tied), by
/// exact comparison. O(max_den).
pub fn closest_fractions(v: Q, max_den: i128) -> Vec<Q> {
    let mut best: Vec<Q> = Vec::new();
    for q in 1..=max_den.max(1) {
        // The nearest numerators are floor(v·q) and floor(v·q)+1.
        let fl = (v.n * q).div_euclid(v.d);
        for p in [fl, fl + 1] {
            let c = Q::new(p, q).unwrap_or(Q::int(0));
            match best.first() {
                None => best.push(c),
                Some(&b) => match v.closer(c, b) {
                    Ordering::Less => best = vec![c],
                    Ordering::Equal => {
                        if !best.contains(&c) {
                            best.push(c)
                        }
                    }
                    Ordering::Greater => {}
                },
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_half_to_even() {
        let q = |n, d| Q::new(n, d).unwrap();
        assert_eq!(q(1, 8).round_scaled(2), Some(12)); // 0.125 -> 0.12
        assert_eq!(q(3, 8).round_scaled(2), Some(38)); // 0.375 -> 0.38
        assert_eq!(q(1, 3).round_scaled(1), Some(3));
        assert_eq!(q(-1, 8).round_scaled(2), Some(-12));
        assert_eq!(q(27215, 159728).round_scaled(3), Some(170));
    }

    #[test]
    fn closest_fraction_rule() {
        let q = |n, d| Q::new(n, d).unwrap();
        assert_eq!(closest_fractions(q(29, 100), 3), vec![q(1, 3)]);
        assert_eq!(closest_fractions(q(2, 5), 5), vec![q(2, 5)]);
        assert_eq!(closest_fractions(q(1, 7), 7), vec![q(1, 7)]);
        assert!(closest_fractions(q(1, 4), 3).contains(&q(1, 3)));
        assert!(!closest_fractions(q(1, 4), 3).contains(&q(0, 1)));
        assert_eq!(group(1001), "1,001");
        assert_eq!(group(-159728), "−159,728");
    }
}
