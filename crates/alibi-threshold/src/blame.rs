//! The parties an abort of cggmp24 or givre blames, by their position in the run.
//!
//! Both libraries identify the faulty parties of an abort, but keep that blame in private types
//! (the `KeygenAborted` and `AbortBlame` of cggmp21-keygen, under givre, and of cggmp24-keygen;
//! cggmp24's signing `Reason`), reachable only through their `Debug` form. This is the one place that reads it, in three shapes:
//! `faulty_party: J` (an `AbortBlame`), `parties: [J, ..]` (a list of indices) and
//! `NotReliable([(J, msg), ..])` (the senders of broadcasts that differed). The scheme crates'
//! tests provoke real aborts and check the positions read here, so a dependency update that
//! changes those forms fails a test instead of blaming no one in silence.

use std::collections::BTreeSet;

/// The positions `debug` (an error's `Debug` form) blames, ascending, each once.
pub(crate) fn positions(debug: &str) -> Vec<u16> {
    let mut out = BTreeSet::new();
    let number = |s: &str| -> Option<u16> {
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    for (at, _) in debug.match_indices("faulty_party: ") {
        out.extend(number(&debug[at + "faulty_party: ".len()..]));
    }
    for (at, _) in debug.match_indices("parties: [") {
        let list = &debug[at + "parties: [".len()..];
        let list = &list[..list.find(']').unwrap_or(list.len())];
        if list
            .chars()
            .all(|c| c.is_ascii_digit() || c == ',' || c == ' ')
        {
            out.extend(list.split(',').filter_map(|j| number(j.trim())));
        }
    }
    for (at, _) in debug.match_indices("NotReliable([") {
        let list = &debug[at + "NotReliable([".len()..];
        let list = &list[..list.find("])").unwrap_or(list.len())];
        out.extend(list.split('(').skip(1).filter_map(number));
    }
    out.into_iter().collect()
}

/// `" (blamed: 0, 2)"` for [`crate::Error::Aborted`]'s message, empty when no one is blamed.
pub(crate) fn words(blamed: &[u16]) -> String {
    if blamed.is_empty() {
        return String::new();
    }
    let list: Vec<String> = blamed.iter().map(u16::to_string).collect();
    format!(" (blamed positions: {})", list.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blame_is_read_from_each_form() {
        let text = "x: [AbortBlame { faulty_party: 4, data_message: 1 }] \
                    FeldmanVerificationFailed { parties: [0, 2] } Round1NotReliable([(1, 9), (3, 2)])";
        assert_eq!(positions(text), [0, 1, 2, 3, 4]);
        assert!(positions("invalid signature").is_empty());
        // A list of something else is no blame.
        assert!(positions("parties: [AbortBlame { data_message: 1 }]").is_empty());
    }

    #[test]
    fn the_message_lists_the_positions() {
        assert_eq!(words(&[]), "");
        assert_eq!(words(&[0, 2]), " (blamed positions: 0, 2)");
    }
}
