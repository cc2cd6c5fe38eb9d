//! Rate limits: what a client address may do before it has logged in (create accounts, have its
//! passwords checked, send sealed messages), what an account may fetch (other devices' prekeys) and
//! what a logged-in device may ask. Each is a GCRA limiter from `governor`, keyed by who is asking;
//! over the limit the answer is 429 with `Retry-After`.

use std::hash::Hash;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::num::NonZeroU32;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::http::StatusCode;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use uuid::Uuid;

use super::ApiError;

/// A rate: `burst` at once, then one more every `1 / per_second` seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// How many may come at once.
    pub burst: u32,
    /// How many more per second after the burst.
    pub per_second: f64,
}

impl Rate {
    /// `burst` at once, then `per_second`.
    pub const fn new(burst: u32, per_second: f64) -> Self {
        Self { burst, per_second }
    }

    fn quota(self) -> Quota {
        let period = Duration::from_secs_f64(1.0 / self.per_second.max(1e-9));
        Quota::with_period(period.max(Duration::from_nanos(1)))
            .expect("a positive period")
            .allow_burst(NonZeroU32::new(self.burst.max(1)).expect("at least 1"))
    }
}

/// As `BURST,PER_SECOND` (the form `alibi relay serve` takes), a rate below one per second whose
/// period is a whole number of seconds as `BURST,1/SECONDS` (`10,1/300`, not
/// `10,0.0033333333333333335`).
impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let period = 1.0 / self.per_second;
        if self.per_second < 1.0 && (period - period.round()).abs() < 1e-6 {
            write!(f, "{},1/{}", self.burst, period.round())
        } else {
            write!(f, "{},{}", self.burst, self.per_second)
        }
    }
}

/// Limits per client address, before login.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AddressLimits {
    /// Accounts created (`POST /v1/accounts`).
    pub account_creations: Rate,
    /// Passwords checked with Argon2id (a device's first request to this relay process, and every
    /// wrong password); a device whose password was checked once costs nothing more.
    pub password_checks: Rate,
    /// Sends without credentials (sealed sender with an access key).
    pub unidentified_sends: Rate,
}

impl Default for AddressLimits {
    fn default() -> Self {
        Self {
            account_creations: Rate::new(20, 0.2),
            password_checks: Rate::new(100, 2.0),
            unidentified_sends: Rate::new(20_000, 10_000.0),
        }
    }
}

/// Who a request comes from, as far as the limits are concerned: the peer's IP address, or for
/// IPv6 its /48 (one host commonly holds a whole /64, and one site a /48: keyed by /64, a site
/// would hold 65,536 keys, each with its own budget).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClientAddress(pub IpAddr);

impl ClientAddress {
    /// The key for a peer address.
    pub fn of(peer: IpAddr) -> Self {
        match peer {
            IpAddr::V6(v6) if v6.to_ipv4_mapped().is_none() => {
                let s = v6.segments();
                Self(IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], 0, 0, 0, 0, 0)))
            }
            IpAddr::V6(v6) => Self(IpAddr::V4(v6.to_ipv4_mapped().expect("mapped"))),
            v4 => Self(v4),
        }
    }
}

/// Middleware: records the peer's address on the request (unspecified when the app is served
/// without connection info, as in a test calling the router directly).
pub(crate) async fn client_address(
    mut req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let ip = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())
        .unwrap_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED));
    req.extensions_mut().insert(ClientAddress::of(ip));
    next.run(req).await
}

/// One keyed limiter.
pub(crate) struct Limiter<K: Hash + Eq + Clone> {
    inner: DefaultKeyedRateLimiter<K>,
    what: &'static str,
}

impl<K: Hash + Eq + Clone> Limiter<K> {
    pub(crate) fn new(rate: Rate, what: &'static str) -> Self {
        Self {
            inner: RateLimiter::keyed(rate.quota()),
            what,
        }
    }

    /// Takes one cell for `key`, or 429 with the seconds until one is free.
    pub(crate) fn check(&self, key: &K) -> Result<(), ApiError> {
        self.inner.check_key(key).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                format!("rate limit: {}", self.what),
            )
            .retry_after(wait)
        })
    }

    /// Forgets keys whose state is back to full (bounds the memory the keys take).
    pub(crate) fn shrink(&self) {
        self.inner.retain_recent();
        self.inner.shrink_to_fit();
    }
}

/// Every limiter of a relay.
pub(crate) struct Limiters {
    pub(crate) account_creations: Limiter<ClientAddress>,
    pub(crate) password_checks: Limiter<ClientAddress>,
    pub(crate) unidentified_sends: Limiter<ClientAddress>,
    pub(crate) prekey_fetches: Limiter<Uuid>,
    /// Per (requesting account, target account).
    pub(crate) prekey_fetches_per_target: Limiter<(Uuid, Uuid)>,
    /// Per (client address, target account): accounts one host made share one budget per target.
    pub(crate) prekey_fetches_from_address: Limiter<(ClientAddress, Uuid)>,
    /// Argon2id runs for new or replaced device passwords, per account (only its primary device,
    /// logged in, can cause them).
    pub(crate) password_work: Limiter<Uuid>,
    /// Argon2id password checks per (account, client address): a stranger who knows an account id
    /// spends its own address's budget for that account, never the owner's elsewhere.
    pub(crate) password_checks_per_account: Limiter<(Uuid, ClientAddress)>,
    pub(crate) per_device: Limiter<(Uuid, u8)>,
}

impl Limiters {
    pub(crate) fn new(c: &super::Config) -> Self {
        let a = c.per_address;
        Self {
            account_creations: Limiter::new(a.account_creations, "account creations"),
            password_checks: Limiter::new(a.password_checks, "password checks"),
            unidentified_sends: Limiter::new(a.unidentified_sends, "unidentified sends"),
            prekey_fetches: Limiter::new(c.prekey_fetches, "prekey fetches"),
            prekey_fetches_per_target: Limiter::new(
                c.prekey_fetches_per_target,
                "prekey fetches of this account",
            ),
            prekey_fetches_from_address: Limiter::new(
                c.prekey_fetches_per_target,
                "prekey fetches of this account from this address",
            ),
            password_work: Limiter::new(c.password_work_per_account, "device passwords"),
            password_checks_per_account: Limiter::new(
                c.password_work_per_account,
                "password checks of this account from this address",
            ),
            per_device: Limiter::new(
                Rate::new(
                    (2.0 * c.rate_per_device).min(u32::MAX as f64) as u32,
                    c.rate_per_device,
                ),
                "requests",
            ),
        }
    }

    /// Charges one Argon2id password check to the client address and to (account, address),
    /// before it waits for a permit: a flood from one address cannot keep every permit busy, and
    /// wrong passwords sent for an account from one address never lock its owner out from
    /// another (a budget per account alone could be kept at zero by anyone who read the
    /// account id on a card).
    pub(crate) fn password_check(
        &self,
        from: &ClientAddress,
        account: &Uuid,
    ) -> Result<(), ApiError> {
        self.password_checks.check(from)?;
        self.password_checks_per_account.check(&(*account, *from))
    }

    /// Charges one Argon2id hash of a new or replaced device password to the address and to the
    /// account, whose logged-in primary asked for it: one account replacing devices in a loop
    /// meets 429 instead of holding every permit.
    pub(crate) fn device_password(
        &self,
        from: &ClientAddress,
        account: &Uuid,
    ) -> Result<(), ApiError> {
        self.password_checks.check(from)?;
        self.password_work.check(account)
    }

    pub(crate) fn shrink(&self) {
        self.account_creations.shrink();
        self.password_checks.shrink();
        self.unidentified_sends.shrink();
        self.prekey_fetches.shrink();
        self.prekey_fetches_per_target.shrink();
        self.prekey_fetches_from_address.shrink();
        self.password_work.shrink();
        self.password_checks_per_account.shrink();
        self.per_device.shrink();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slow_rate_shows_as_one_per_so_many_seconds() {
        assert_eq!(Rate::new(10, 1.0 / 300.0).to_string(), "10,1/300");
        assert_eq!(Rate::new(50, 0.5).to_string(), "50,1/2");
        assert_eq!(Rate::new(20, 0.2).to_string(), "20,1/5");
        assert_eq!(Rate::new(100, 2.0).to_string(), "100,2");
        assert_eq!(Rate::new(3, 0.3).to_string(), "3,0.3");
    }

    #[test]
    fn ipv6_addresses_of_one_slash_48_share_a_key() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:ffff:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:2::1".parse().unwrap();
        assert_eq!(
            ClientAddress::of(a),
            ClientAddress::of(b),
            "two /64s of one /48"
        );
        assert_ne!(ClientAddress::of(a), ClientAddress::of(c));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(
            ClientAddress::of(mapped),
            ClientAddress(IpAddr::V4("192.0.2.7".parse().unwrap()))
        );
    }

    #[test]
    fn a_burst_is_allowed_then_refused_with_a_wait() {
        let l = Limiter::new(Rate::new(3, 0.5), "things");
        let k = ClientAddress(IpAddr::V4([192, 0, 2, 1].into()));
        for _ in 0..3 {
            assert!(l.check(&k).is_ok());
        }
        let e = l.check(&k).unwrap_err();
        assert_eq!(e.0, StatusCode::TOO_MANY_REQUESTS);
        let wait = e.2.expect("Retry-After");
        assert!((1..=2).contains(&wait), "{wait}");
        // Another address has its own budget.
        assert!(l
            .check(&ClientAddress(IpAddr::V4([192, 0, 2, 2].into())))
            .is_ok());
    }
}
