//! Counting helpers shared by the games and their censuses: the one binomial coefficient
//! and the one greatest common divisor.

/// C(n, r), the number of r-element subsets of an n-element set, saturating at
/// `u64::MAX` (exact whenever the true value fits, e.g. every C(n, r) with n ≤ 67).
/// 0 when r > n. O(min(r, n − r)) multiplications over u128; each partial product
/// C(n, i) is exact because i! divides n(n−1)…(n−i+1).
pub fn binomial(n: u64, r: u64) -> u64 {
    if r > n {
        return 0;
    }
    let r = r.min(n - r);
    let mut acc: u128 = 1;
    for i in 0..r {
        acc = acc * u128::from(n - i) / u128::from(i + 1);
        if acc > u128::from(u64::MAX) {
            return u64::MAX;
        }
    }
    acc as u64
}

/// The greatest common divisor of `a` and `b` by Euclid's algorithm; gcd(a, 0) = a,
/// gcd(0, 0) = 0.
pub fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials_match_pascals_triangle_and_saturate() {
        // Pascal's rows in u128: row 68 (made after the last row checked) is past u64.
        let mut row = vec![1u128];
        for n in 0..=67u64 {
            for (r, &c) in row.iter().enumerate() {
                assert_eq!(u128::from(binomial(n, r as u64)), c, "C({n}, {r})");
            }
            assert_eq!(binomial(n, n + 1), 0);
            row = (0..=row.len()).map(|r| if r == 0 || r == row.len() { 1 } else { row[r - 1] + row[r] }).collect();
        }
        assert_eq!(binomial(200, 100), u64::MAX);
    }

    #[test]
    fn gcds_divide_both_and_are_greatest() {
        assert_eq!(gcd(0, 0), 0);
        assert_eq!(gcd(12, 0), 12);
        for a in 0..60u128 {
            for b in 1..60u128 {
                let g = gcd(a, b);
                assert!(a % g == 0 && b % g == 0 && (g + 1..=b).all(|d| a % d != 0 || b % d != 0), "gcd({a}, {b}) = {g}");
            }
        }
    }
}
