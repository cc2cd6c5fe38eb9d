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
/// client error; returned without trailing slashes. Plain http to a host that is not loopback is
/// refused unless `insecure_http` (`--insecure-http`): the messenger's own check, made here so
/// that it comes before any passphrase prompt or connection.
pub fn relay_url(s: &str, insecure_http: bool) -> Result<String, Failure> {
    let url = s
        .split(',')
        .map(one_url)
        .collect::<Result<Vec<_>, _>>()
        .map(|v| v.join(","))?;
    alibi_messenger::Endpoint::new(&url)
        .allow_insecure_http(insecure_http)
        .check()
        .map_err(|e| Failure::Usage(e.to_string()))?;
    Ok(url)
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
            relay_url("http://127.0.0.1:8080/", false).ok().as_deref(),
            Some("http://127.0.0.1:8080")
        );
        assert!(relay_url("127.0.0.1:8080", false).is_err());
        assert!(relay_url("ftp://x", false).is_err());
        assert!(relay_url("http://", false).is_err());
        assert!(relay_url("not a url", false).is_err());
        assert_eq!(
            relay_url("https://a:1/, https://b:2", false)
                .ok()
                .as_deref(),
            Some("https://a:1,https://b:2")
        );
        assert!(relay_url("https://a:1,", false).is_err());
    }

    /// `--insecure-http` is needed for plain http to a host that is not loopback, and the
    /// refusal names it.
    #[test]
    fn plain_http_to_a_remote_relay_needs_insecure_http() {
        match relay_url("http://example.invalid", false) {
            Err(crate::failure::Failure::Usage(m)) => assert!(m.contains("--insecure-http"), "{m}"),
            other => panic!("expected a usage error, got {other:?}"),
        }
        assert!(relay_url("https://ok.invalid,http://example.invalid:80", false).is_err());
        assert_eq!(
            relay_url("http://example.invalid/", true).ok().as_deref(),
            Some("http://example.invalid")
        );
        assert!(relay_url(
            "http://127.0.0.1:1,http://[::1]:2,http://localhost:3",
            false
        )
        .is_ok());
        assert!(relay_url("https://example.invalid", false).is_ok());
    }
}
