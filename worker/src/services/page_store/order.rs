//! Order keys: a stored block's place in its page, as a key that sorts between its neighbours' keys. A new
//! or moved block gets a key between the blocks around it, so no other row changes (no renumbering).
//!
//! Keys are fractional indexes from `loro_fractional_index` (loro's maintained fork of `fractional_index`;
//! the original's `new_between` breaks on a shared `0x00` byte, which a page reaches after about 128
//! inserts at its top). They are stored as uppercase hex, which sorts byte for byte like the key, so
//! `ORDER BY ord` is page order.

use loro_fractional_index::FractionalIndex;

/// The byte every key ends with (the crate's terminator): what makes "before" and "after" always exist.
const TERMINATOR: u8 = 0x80;

/// One block's order key.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct OrderKey(FractionalIndex);

impl OrderKey {
    /// Reads a stored key, refusing anything the crate could not extend (not hex, or not terminated).
    pub fn parse(hex: &str) -> Result<OrderKey, String> {
        let bad = || format!("stored order key {hex:?} is not a fractional index");
        if hex.is_empty() || !hex.len().is_multiple_of(2) {
            return Err(bad());
        }
        let bytes = hex
            .as_bytes()
            .chunks_exact(2)
            .map(|pair| std::str::from_utf8(pair).ok().and_then(|s| u8::from_str_radix(s, 16).ok()))
            .collect::<Option<Vec<u8>>>()
            .ok_or_else(bad)?;
        if bytes.last() != Some(&TERMINATOR) {
            return Err(bad());
        }
        Ok(OrderKey(FractionalIndex::from_bytes(bytes)))
    }

    /// The stored form.
    pub fn to_hex(&self) -> String {
        self.0.to_string()
    }

    /// `n` keys in increasing order, strictly between `lower` and `upper` (an open end when `None`),
    /// spread evenly so a run of `n` new blocks costs about `log2(n)` bits of key each, not `n`.
    pub fn between(lower: Option<&OrderKey>, upper: Option<&OrderKey>, n: usize) -> Result<Vec<OrderKey>, String> {
        if let (Some(lower), Some(upper)) = (lower, upper)
            && lower >= upper
        {
            return Err(format!("order keys out of order: {} ≥ {}", lower.to_hex(), upper.to_hex()));
        }
        // An open end is bisected like a closed one, from the edge of the one-byte keys when the other
        // bound leaves room: the crate steps an open end one byte value at a time, which makes the keys of
        // a 10,000-block page 13 bytes long instead of 3.
        let (bottom, top) =
            (FractionalIndex::from_bytes(vec![0x00, TERMINATOR]), FractionalIndex::from_bytes(vec![0xFF, TERMINATOR]));
        let low = match lower {
            Some(key) => Some(&key.0),
            None => upper.is_none_or(|u| u.0 > bottom).then_some(&bottom),
        };
        let high = match upper {
            Some(key) => Some(&key.0),
            None => lower.is_none_or(|l| l.0 < top).then_some(&top),
        };
        let keys = FractionalIndex::generate_n_evenly(low, high, n)
            .ok_or_else(|| "no order key fits between the neighbours".to_string())?;
        let keys: Vec<OrderKey> = keys.into_iter().map(OrderKey).collect();
        // The crate is trusted for this, but a key out of place would reorder a page silently: check.
        let mut previous = lower;
        for key in &keys {
            if previous.is_some_and(|p| p >= key) || upper.is_some_and(|u| key >= u) {
                return Err(format!("order key {} falls outside its neighbours", key.to_hex()));
            }
            previous = Some(key);
        }
        Ok(keys)
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing, reason = "a failed expectation is the test's report")]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_refuse_what_is_not_a_key() {
        let key = OrderKey::between(None, None, 1).expect("one key").remove(0);
        assert_eq!(OrderKey::parse(&key.to_hex()).expect("parses"), key);
        for bad in ["", "8", "zz80", "7F", "80 0"] {
            assert!(OrderKey::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_page_of_ten_thousand_blocks_gets_short_increasing_keys() {
        let keys = OrderKey::between(None, None, 10_000).expect("keys");
        assert!(keys.windows(2).all(|w| w[0] < w[1] && w[0].to_hex() < w[1].to_hex()));
        let longest = keys.iter().map(|k| k.to_hex().len()).max().unwrap_or(0);
        assert!(longest <= 16, "longest key {longest} hex digits");
    }

    #[test]
    fn inserting_at_the_top_again_and_again_stays_ordered() {
        // Past 128 inserts at the top the keys share a 0x00 byte: where `fractional_index` 2.0.2 fails.
        let mut keys = OrderKey::between(None, None, 3).expect("keys");
        for _ in 0..600 {
            let top = OrderKey::between(None, keys.first(), 1).expect("a key before the first").remove(0);
            keys.insert(0, top);
            let second = OrderKey::between(keys.first(), keys.get(1), 1).expect("a key between").remove(0);
            keys.insert(1, second);
        }
        assert!(keys.windows(2).all(|w| w[0].to_hex() < w[1].to_hex()));
    }

    #[test]
    fn neighbours_out_of_order_are_refused() {
        let keys = OrderKey::between(None, None, 2).expect("keys");
        assert!(OrderKey::between(Some(&keys[1]), Some(&keys[0]), 1).is_err());
        assert!(OrderKey::between(Some(&keys[0]), Some(&keys[0]), 1).is_err());
    }
}
