//! Exact rational numbers for comparing stated values with computed ones.
//!
//! [`Q`] is a big rational (`num-rational` over `num-bigint`): no value a census returns
//! or an essay states can overflow it, so a comparison is never wrong for want of bits
//! (an `i128` type once compared 1.2·10²⁹ with 2⁻⁴⁰ wrongly in release builds).

use std::fmt;
use std::ops::{Add, Div, Mul, Sub};

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{Signed, ToPrimitive, Zero};

/// An exact fraction, always reduced, denominator positive.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Q(BigRational);

impl Q {
    /// `n / d`, reduced. `d == 0` gives `None`.
    pub fn new(n: impl Into<BigInt>, d: impl Into<BigInt>) -> Option<Q> {
        let d = d.into();
        if d.is_zero() {
            return None;
        }
        Some(Q(BigRational::new(n.into(), d)))
    }

    /// The integer `n`.
    pub fn int(n: impl Into<BigInt>) -> Q {
        Q(BigRational::from_integer(n.into()))
    }

    /// 10^k.
    pub fn pow10(k: u32) -> Q {
        Q::int(ten_to(k))
    }

    /// True when the value is an integer.
    pub fn is_integer(&self) -> bool {
        self.0.is_integer()
    }

    /// The numerator of the reduced fraction (carries the sign).
    pub fn numer(&self) -> &BigInt {
        self.0.numer()
    }

    /// The denominator of the reduced fraction (positive).
    pub fn denom(&self) -> &BigInt {
        self.0.denom()
    }

    /// True when the value is below zero.
    pub fn is_negative(&self) -> bool {
        self.0.is_negative()
    }

    /// True when the value is zero.
    pub fn is_zero(&self) -> bool {
        self.0.is_zero()
    }

    /// Absolute value.
    pub fn abs(&self) -> Q {
        Q(self.0.abs())
    }

    /// `1 / self`; `None` for zero.
    pub fn recip(&self) -> Option<Q> {
        (!self.is_zero()).then(|| Q(self.0.recip()))
    }

    /// The greatest integer not above the value.
    pub fn floor(&self) -> BigInt {
        self.0.numer().div_floor(self.0.denom())
    }

    /// The value rounded to an integer, half to even (0.5 → 0, 1.5 → 2, −0.5 → 0).
    pub fn round_half_even(&self) -> BigInt {
        let fl = self.floor();
        let twice_rest = (self - &Q::int(fl.clone())) * Q::int(2);
        match twice_rest.cmp(&Q::int(1)) {
            std::cmp::Ordering::Less => fl,
            std::cmp::Ordering::Greater => fl + 1,
            std::cmp::Ordering::Equal if fl.is_even() => fl,
            std::cmp::Ordering::Equal => fl + 1,
        }
    }

    /// `self × 10^k` rounded half to even: the digits of the value at `k` decimal places.
    pub fn round_scaled(&self, k: u32) -> BigInt {
        (self * &Q::pow10(k)).round_half_even()
    }

    /// An approximate `f64`, for display only.
    pub fn to_f64(&self) -> f64 {
        self.0.to_f64().unwrap_or(f64::NAN)
    }
}

macro_rules! arith {
    ($tr:ident, $f:ident) => {
        impl $tr<&Q> for &Q {
            type Output = Q;
            fn $f(self, o: &Q) -> Q {
                Q($tr::$f(&self.0, &o.0))
            }
        }
        impl $tr<Q> for Q {
            type Output = Q;
            fn $f(self, o: Q) -> Q {
                Q($tr::$f(self.0, o.0))
            }
        }
    };
}
arith!(Add, add);
arith!(Sub, sub);
arith!(Mul, mul);

impl Div<&Q> for &Q {
    type Output = Option<Q>;
    /// `None` when dividing by zero.
    fn div(self, o: &Q) -> Option<Q> {
        (!o.is_zero()).then(|| Q(&self.0 / &o.0))
    }
}

impl fmt::Display for Q {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_integer() {
            write!(f, "{}", group(self.numer()))
        } else {
            write!(f, "{}/{} (≈ {:.4})", self.numer(), self.denom(), self.to_f64())
        }
    }
}

/// 10^k as an integer.
pub fn ten_to(k: u32) -> BigInt {
    num_traits::pow(BigInt::from(10), k as usize)
}

/// `n` with `,` between groups of three digits: 27215 → "27,215".
pub fn group(n: &BigInt) -> String {
    group_with(n, ",")
}

/// `n` with `sep` between groups of three digits, and `−` (U+2212) before a negative.
pub fn group_with(n: &BigInt, sep: &str) -> String {
    let digits = n.magnitude().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push_str(sep);
        }
        out.push(c);
    }
    if n.is_negative() {
        format!("−{out}")
    } else {
        out
    }
}

/// The fraction with the least denominator strictly between `lo` and `hi` (`lo < hi`);
/// among those, the least numerator above zero.
///
/// By the continued-fraction descent of the Stern–Brocot tree (Graham, Knuth and
/// Patashnik, *Concrete Mathematics*, §4.5): an integer inside the interval is the answer;
/// otherwise both ends share an integer part `a`, and the answer is `a + 1/y` for the
/// simplest `y` between the reciprocals of the fractional parts. O(length of the
/// continued fraction) steps, so logarithmic in the denominators.
pub fn simplest_between(lo: &Q, hi: &Q) -> Q {
    // Each step works on an interval (lo, hi), `hi` possibly infinite (None).
    let mut lo = lo.clone();
    let mut hi = Some(hi.clone());
    // The continued fraction found so far, as integer parts a0, a1, ….
    let mut parts: Vec<BigInt> = Vec::new();
    loop {
        let next = Q::int(lo.floor() + 1);
        if hi.as_ref().is_none_or(|h| next < *h) {
            // An integer inside: the one nearest `lo` (the least, for positive intervals;
            // for an interval through zero, zero itself when it lies inside).
            let inside = if lo.is_negative() && hi.as_ref().is_none_or(|h| h.0.is_positive()) { Q::int(0) } else { next };
            return parts.iter().rev().fold(inside, |acc, a| &Q::int(a.clone()) + &acc.recip().unwrap_or_else(|| Q::int(0)));
        }
        let a = lo.floor();
        let base = Q::int(a.clone());
        let (l, h) = (&lo - &base, hi.as_ref().map(|h| h - &base).unwrap_or_else(|| Q::int(1)));
        parts.push(a);
        // x = a + 1/y with y between 1/h and 1/l (1/0 is infinite).
        lo = h.recip().unwrap_or_else(|| Q::int(0));
        hi = l.recip();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: i64, d: i64) -> Q {
        Q::new(n, d).unwrap()
    }

    #[test]
    fn rounding_half_to_even() {
        assert_eq!(q(1, 8).round_scaled(2), BigInt::from(12)); // 0.125 -> 0.12
        assert_eq!(q(3, 8).round_scaled(2), BigInt::from(38)); // 0.375 -> 0.38
        assert_eq!(q(1, 3).round_scaled(1), BigInt::from(3));
        assert_eq!(q(-1, 8).round_scaled(2), BigInt::from(-12));
        assert_eq!(q(-3, 2).round_half_even(), BigInt::from(-2));
        assert_eq!(q(27215, 159728).round_scaled(3), BigInt::from(170));
    }

    #[test]
    fn big_values_compare_exactly() {
        // 1.2·10²⁹ against 2⁻⁴⁰: an i128 cross-multiplication overflows here.
        let big = Q::int(12) * Q::pow10(28);
        let tiny = Q::new(1, num_traits::pow(BigInt::from(2), 40)).unwrap();
        assert!(big > tiny);
        assert!(&tiny - &big < Q::int(0));
    }

    #[test]
    fn the_simplest_fraction_between_two_others() {
        assert_eq!(simplest_between(&q(3, 10), &q(4, 10)), q(1, 3));
        assert_eq!(simplest_between(&q(1, 4), &q(1, 3)), q(2, 7));
        assert_eq!(simplest_between(&q(-1, 2), &q(1, 3)), q(0, 1));
        assert_eq!(simplest_between(&q(5, 2), &q(7, 2)), q(3, 1));
        assert_eq!(simplest_between(&q(1, 1000), &q(2, 1000)), q(1, 501));
        assert_eq!(simplest_between(&q(0, 1), &q(1, 1000)), q(1, 1001));
        // Brute force over small denominators agrees.
        for (a, b) in [(7, 19), (13, 31), (2, 3), (50, 51), (0, 1)] {
            let (lo, hi) = (q(a, b + 5), q(a + 1, b + 5));
            let s = simplest_between(&lo, &hi);
            let least = (1..200i64).find(|&d| (0..200i64).any(|n| q(n, d) > lo && q(n, d) < hi)).unwrap();
            assert_eq!(s.denom(), &BigInt::from(least), "{lo} {hi}");
            assert!(s > lo && s < hi);
        }
        assert_eq!(group(&BigInt::from(1001)), "1,001");
        assert_eq!(group(&BigInt::from(-159728)), "−159,728");
    }
}
