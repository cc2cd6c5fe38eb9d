//! What the commands that talk to a relay share: the async runtime and the checked relay URL.

use crate::failure::{usage, Failure};

/// A multi-threaded Tokio runtime for the commands that talk to a relay.
pub fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(usage)
}

/// A relay's base URL, or several nodes' comma-separated, checked up front (each an http or
/// https URL with a host) so that a typo is named here rather than reported later as an HTTP
/// client error; returned without trailing slashes.
pub fn relay_url(s: &str) -> Result<String, Failure> {
    s.split(',')
        .map(one_url)
        .collect::<Result<Vec<_>, _>>()
        .map(|v| v.join(","))
}

fn one_url(s: &str) -> Result<String, Failure> {
    let s = s.trim();
    let bad = |why: String| Failure::Usage(format!("'{s}' is not a relay URL: {why}"));
    let u = url::Url::parse(s).map_err(|e| bad(e.to_string()))?;
    if !matches!(u.scheme(), "http" | "https") {
        return Err(bad(format!(
            "the scheme must be http or https, not {}",
            u.scheme()
        )));
    }
    if u.host().is_none() {
        return Err(bad("no host".into()));
    }
    Ok(s.trim_end_matches('/').to_string())
}

#[cfg(test)]
mod tests {
    use super::relay_url;

    #[test]
    fn urls() {
        assert_eq!(
            relay_url("http://127.0.0.1:8080/").ok().as_deref(),
            Some("http://127.0.0.1:8080")
        );
        assert!(relay_url("127.0.0.1:8080").is_err());
        assert!(relay_url("ftp://x").is_err());
        assert!(relay_url("http://").is_err());
        assert!(relay_url("not a url").is_err());
        assert_eq!(
            relay_url("https://a:1/, https://b:2").ok().as_deref(),
            Some("https://a:1,https://b:2")
        );
        assert!(relay_url("https://a:1,").is_err());
    }
}
