//! One party's end of the group, for every [`Scheme`] alike: [`Endpoint::keygen`] and
//! [`Endpoint::sign`] take the same jobs ([`Keygen`], [`Signing`]) and give the same outcomes
//! ([`Share`], [`Signature`]) whatever the scheme, with blame by party ([`crate::Blame`]). BLS
//! runs alibi's own protocol on the transport; the external schemes lend the transport to a
//! [`Net`] for the run and take it back after, so the sessions it holds serve the next run.
//! Whatever the transport, the runs are one code, this crate's: an endpoint keeps its transport
//! with the type erased (the private `erased` module) and gives it back as its own type.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::time::Duration;

use crate::curve::{Bls12, DkgCurve, Ed25519, Secp256k1};
use crate::dkg::{keygen as own_keygen, KeyShare, KeygenConfig, Resharing};
use crate::erased::Erased;
use crate::net::{Net, NetConfig};
use crate::scheme::{
    external, generate_primes, presign, refresh, verify, DerivationPath, Presignature, Primes,
    Scheme, Share,
};
use crate::sign::{sign as bls_sign, Disagreement, SignConfig};
use crate::transport::Transport;
use crate::{Blame, Error, Party, PartyIndex, Result, SessionId};

/// Where a threshold ECDSA key generation takes its safe primes from (the other schemes need
/// none).
pub enum PrimeSource {
    /// Primes found ahead of time ([`generate_primes`], `alibi mpc aux`).
    Given(Primes),
    /// Primes `search` finds once this party is connected, after it told the others `note`
    /// (their waiting lines show it): the others' messages wait for it meanwhile. An error
    /// is `search`'s own words.
    Search {
        /// What the others are told while this party searches.
        note: Option<String>,
        /// The search.
        search: Box<dyn FnOnce() -> core::result::Result<Primes, String> + Send + Sync>,
    },
}

/// A key generation, as every party runs it.
pub struct Keygen {
    /// The scheme.
    pub scheme: Scheme,
    /// The run's identifier, the same for every party.
    pub session: SessionId,
    /// t: any t+1 parties sign, t cannot.
    pub t: usize,
    /// Every party's index.
    pub parties: Vec<PartyIndex>,
    /// How long to wait for a round before naming the silent.
    pub timeout: Duration,
    /// Threshold ECDSA's safe primes; without them they are searched for silently.
    pub primes: Option<PrimeSource>,
    /// BLS only: new shares of an existing key (refresh, or a move to another group) instead of
    /// a new key.
    pub resharing: Option<Resharing>,
    /// Test hook: how this party cheats (BLS: any of its misbehaviours; the external
    /// schemes: misdealing to a victim only).
    #[cfg(feature = "adversary")]
    pub misbehaviour: Option<crate::adversary::Misbehaviour>,
}

impl Keygen {
    /// A key generation of `scheme` by `parties` with threshold t, waiting `timeout` per round.
    pub fn new(
        scheme: Scheme,
        session: SessionId,
        t: usize,
        parties: Vec<PartyIndex>,
        timeout: Duration,
    ) -> Self {
        Keygen {
            scheme,
            session,
            t,
            parties,
            timeout,
            primes: None,
            resharing: None,
            #[cfg(feature = "adversary")]
            misbehaviour: None,
        }
    }
}

/// A signing run, as every signer runs it.
#[derive(Clone, Debug)]
pub struct Signing {
    /// The run's identifier, the same for every signer.
    pub session: SessionId,
    /// The signers asked, this party among them ([`Share::check_signers`]).
    pub signers: Vec<PartyIndex>,
    /// Whether the first t+1 valid partials finish the run (BLS): those not heard from are
    /// not named. The external schemes sign with exactly t+1 parties either way.
    pub any_t_plus_1: bool,
    /// How long to wait for a round.
    pub timeout: Duration,
    /// The key signed under: the group key at `m` (the default), else its child
    /// ([`crate::scheme::public_key_at`]; FROST and ECDSA keys with a chain code). Never with a
    /// presignature ([`Endpoint::sign_presigned`] refuses one).
    pub path: DerivationPath,
}

impl Signing {
    /// Signing by every one of `signers`.
    pub fn new(session: SessionId, signers: Vec<PartyIndex>, timeout: Duration) -> Self {
        Signing {
            session,
            signers,
            any_t_plus_1: false,
            timeout,
            path: DerivationPath::master(),
        }
    }

    /// Signing by any t+1 of `asked` (BLS), or by all of them when they are t+1.
    pub fn any_t_plus_1(session: SessionId, asked: Vec<PartyIndex>, timeout: Duration) -> Self {
        Signing {
            any_t_plus_1: true,
            ..Signing::new(session, asked, timeout)
        }
    }
}

/// The outcome of signing.
#[derive(Clone, Debug)]
pub struct Signature {
    /// The scheme's standard signature, checked under the group key.
    pub bytes: Vec<u8>,
    /// The signers whose partials were combined.
    pub combined: Vec<PartyIndex>,
    /// Who was named (BLS finishes without them).
    pub blamed: Vec<Blame>,
    /// Signers whose partials were for another message or key (not combined, not named).
    pub disagreeing: Vec<(PartyIndex, Disagreement)>,
}

/// Presignatures are made for the group key and never shifted to a child (cggmp24's own
/// restriction): a presigning or presigned run with a derivation path is refused.
fn group_key_only(job: &Signing) -> Result<()> {
    if job.path.is_master() {
        return Ok(());
    }
    Err(Error::Parameters(
        "presignatures sign under the group key only, never a derived key".into(),
    ))
}

/// One party's end of the group: its identity and its transport.
pub struct Endpoint<T: Transport> {
    core: Core,
    transport: PhantomData<fn() -> T>,
}

impl<T: Transport + Sync + 'static> Endpoint<T> {
    /// Party `party` over `transport`.
    pub fn new(transport: T, party: Party) -> Self {
        Endpoint {
            core: Core {
                transport: Some(Erased::new(transport)),
                party,
            },
            transport: PhantomData,
        }
    }

    /// This party's index.
    pub fn me(&self) -> PartyIndex {
        self.core.me()
    }

    /// The transport, between runs.
    pub fn transport(&self) -> Option<&T> {
        self.core.transport.as_ref()?.get()
    }

    /// The transport, between runs, to change.
    pub fn transport_mut(&mut self) -> Option<&mut T> {
        self.core.transport.as_mut()?.get_mut()
    }

    /// The transport back.
    pub fn into_transport(self) -> Option<T> {
        self.core.transport?.into_inner()
    }

    /// Runs key generation as this party; its share.
    pub async fn keygen(&mut self, job: Keygen) -> Result<Share> {
        self.core.keygen(job).await
    }

    /// Refreshes `share`'s key among its parties (`job` names them, its scheme and threshold
    /// those of the share, and no resharing): new shares of the same key that do not combine
    /// with the old ones. BLS and FROST keys run alibi's key generation rounds with every party
    /// dealing its old share ([`Resharing`]): a cheater is named as in key generation. A FROST
    /// refresh needs every party of the key and gives no share if it named anyone. Threshold
    /// ECDSA is refused: cggmp24's key refresh is for non-threshold shares only.
    pub async fn refresh(&mut self, share: &Share, job: Keygen) -> Result<Share> {
        self.core.refresh(share, job).await
    }

    /// Signs `message` with `share` as this party: any t+1 valid partials of the signers
    /// asked (BLS, with [`Signing::any_t_plus_1`]), or exactly t+1 signers; the signature is
    /// checked under the group key.
    pub async fn sign(
        &mut self,
        share: &Share,
        job: &Signing,
        message: &[u8],
    ) -> Result<Signature> {
        self.core.sign(share, job, message).await
    }

    /// Presigns with `share` (threshold ECDSA) as this party among `job.signers` (exactly t+1):
    /// one presignature, for one later signature by the same signers in one round
    /// ([`Endpoint::sign_presigned`]).
    pub async fn presign(&mut self, share: &Share, job: &Signing) -> Result<Presignature> {
        self.core.presign(share, job).await
    }

    /// Signs `message` with `presig` as this party, in one round among the presignature's
    /// signers (`job.signers`, the same parties): the signature, checked under the group key.
    /// Consumes the presignature, which signs once.
    pub async fn sign_presigned(
        &mut self,
        share: &Share,
        presig: Presignature,
        job: &Signing,
        message: &[u8],
    ) -> Result<Signature> {
        self.core.sign_presigned(share, presig, job, message).await
    }
}

/// A run of [`Core`], boxed where it is made, so that its code is this crate's.
type Run<'a, V> = Pin<Box<dyn Future<Output = Result<V>> + Send + 'a>>;

/// The entries of the runs, each boxing its run here (never inlined into the generic
/// [`Endpoint`], which would compile the run again in its caller's crate).
impl Core {
    fn me(&self) -> PartyIndex {
        self.party.index
    }

    #[inline(never)]
    fn keygen(&mut self, job: Keygen) -> Run<'_, Share> {
        Box::pin(self.run_keygen(job))
    }

    #[inline(never)]
    fn refresh<'a>(&'a mut self, share: &'a Share, job: Keygen) -> Run<'a, Share> {
        Box::pin(self.run_refresh(share, job))
    }

    #[inline(never)]
    fn sign<'a>(
        &'a mut self,
        share: &'a Share,
        job: &'a Signing,
        msg: &'a [u8],
    ) -> Run<'a, Signature> {
        Box::pin(self.run_sign(share, job, msg))
    }

    #[inline(never)]
    fn presign<'a>(&'a mut self, share: &'a Share, job: &'a Signing) -> Run<'a, Presignature> {
        Box::pin(self.run_presign(share, job))
    }

    #[inline(never)]
    fn sign_presigned<'a>(
        &'a mut self,
        share: &'a Share,
        presig: Presignature,
        job: &'a Signing,
        msg: &'a [u8],
    ) -> Run<'a, Signature> {
        Box::pin(self.run_sign_presigned(share, presig, job, msg))
    }
}

/// What an [`Endpoint`] holds, its transport's type erased ([`crate::erased`]): the runs are
/// this type's, compiled once whatever the transport.
struct Core {
    /// `None` only when a run never gave it back (a clone of its net outlived the run).
    transport: Option<Erased>,
    party: Party,
}

fn lost() -> Error {
    Error::Transport("a past run still holds this party's transport".into())
}

impl Core {
    /// [`Endpoint::keygen`].
    async fn run_keygen(&mut self, mut job: Keygen) -> Result<Share> {
        if job.scheme == Scheme::Bls {
            return self.bls_keygen(job).await;
        }
        if job.resharing.is_some() {
            return Err(Error::Parameters(format!(
                "moving a key to another group is for bls keys only, not {} (a refresh is \
                 Endpoint::refresh)",
                job.scheme.name()
            )));
        }
        let net = self.net(job.session, &job.parties, job.timeout)?;
        let primes = job.primes.take();
        #[cfg(feature = "adversary")]
        let r = match cheat(&net, job.misbehaviour).await {
            Ok(()) => external_keygen(&net, (job.scheme, job.t), primes).await,
            Err(e) => Err(e),
        };
        #[cfg(not(feature = "adversary"))]
        let r = external_keygen(&net, (job.scheme, job.t), primes).await;
        self.take_back(net)?;
        r.map(Share::from)
    }

    async fn bls_keygen(&mut self, mut job: Keygen) -> Result<Share> {
        let resharing = job.resharing.take();
        Ok(self.own_rounds::<Bls12>(job, resharing).await?.into())
    }

    /// alibi's own key generation rounds in the group of `C` ([`crate::dkg`]).
    async fn own_rounds<C: DkgCurve>(
        &mut self,
        job: Keygen,
        resharing: Option<Resharing<C>>,
    ) -> Result<KeyShare> {
        let config = KeygenConfig {
            resharing,
            ..KeygenConfig::new(job.session, job.t, job.parties, job.timeout)
        };
        #[cfg(feature = "adversary")]
        let config = KeygenConfig {
            misbehaviour: match job.misbehaviour {
                Some(crate::adversary::Misbehaviour::MisdealTo(_)) => {
                    return Err(Error::Parameters("misdeal is for FROST and ECDSA".into()))
                }
                m => m,
            },
            ..config
        };
        let transport = self.transport.as_mut().ok_or_else(lost)?;
        let rng = &mut rand_core::UnwrapErr(getrandom::SysRng);
        own_keygen(&self.party, &config, transport, rng).await
    }

    /// [`Endpoint::refresh`].
    async fn run_refresh(&mut self, share: &Share, job: Keygen) -> Result<Share> {
        if job.scheme != share.scheme() || job.t != share.threshold() || job.resharing.is_some() {
            return Err(Error::Parameters(
                "a refresh keeps the share's scheme and threshold, and reshares nothing else"
                    .into(),
            ));
        }
        match share.scheme() {
            Scheme::Bls => {
                let bls = share.bls().ok_or(Error::Malformed("a bls share"))?;
                let resharing = Resharing::refresh(bls)?;
                Ok(self.own_rounds::<Bls12>(job, Some(resharing)).await?.into())
            }
            Scheme::FrostEd25519 => self.frost_refresh::<Ed25519>(share, job).await,
            Scheme::FrostSecp256k1Tr => self.frost_refresh::<Secp256k1>(share, job).await,
            Scheme::EcdsaSecp256k1 => Err(Error::Parameters(
                Scheme::EcdsaSecp256k1
                    .refresh_refusal()
                    .unwrap_or("not refreshed")
                    .into(),
            )),
        }
    }

    async fn frost_refresh<C: DkgCurve>(&mut self, share: &Share, job: Keygen) -> Result<Share> {
        let held = share.external().ok_or(Error::Malformed("a FROST share"))?;
        if job.parties != held.parties {
            return Err(Error::Parameters(
                "a FROST key is refreshed by every party that holds a share of it".into(),
            ));
        }
        let (resharing, frost) = refresh::frost_resharing::<C>(held)?;
        let new = self.own_rounds::<C>(job, Some(resharing)).await?;
        Ok(refresh::frost_refreshed(held, &frost, new)?.into())
    }

    /// [`Endpoint::sign`].
    async fn run_sign(
        &mut self,
        share: &Share,
        job: &Signing,
        message: &[u8],
    ) -> Result<Signature> {
        self.check(share, job)?;
        // The key the signature must verify under, and a path refused before anything is sent.
        let key = share.public_key_at(&job.path)?;
        let signed = match share.external() {
            None => self.bls_sign(share, job, message).await?,
            Some(held) => {
                let net = self.net(job.session, &job.signers, job.timeout)?;
                let r = external::sign(&net, (held, &job.path), message).await;
                self.take_back(net)?;
                Signature {
                    bytes: r?,
                    combined: job.signers.clone(),
                    blamed: vec![],
                    disagreeing: vec![],
                }
            }
        };
        verify(share.scheme(), &key, message, &signed.bytes).map_err(|_| {
            Error::Verification("the combined signature does not verify under the key signed with")
        })?;
        Ok(signed)
    }

    /// [`Endpoint::presign`].
    async fn run_presign(&mut self, share: &Share, job: &Signing) -> Result<Presignature> {
        self.check(share, job)?;
        let held = share.external().ok_or_else(|| {
            Error::Parameters("presignatures are for ecdsa-secp256k1, not bls".into())
        })?;
        group_key_only(job)?;
        let net = self.net(job.session, &job.signers, job.timeout)?;
        let r = presign::presign(&net, held).await;
        self.take_back(net)?;
        r
    }

    /// [`Endpoint::sign_presigned`].
    async fn run_sign_presigned(
        &mut self,
        share: &Share,
        presig: Presignature,
        job: &Signing,
        message: &[u8],
    ) -> Result<Signature> {
        self.check(share, job)?;
        group_key_only(job)?;
        presign::same_key(share, &presig)?;
        let net = self.net(job.session, &job.signers, job.timeout)?;
        let r = presign::sign_presigned(&net, presig, message).await;
        self.take_back(net)?;
        let bytes = r?;
        verify(share.scheme(), share.public_key(), message, &bytes).map_err(|_| {
            Error::Verification("the combined signature does not verify under the group key")
        })?;
        Ok(Signature {
            bytes,
            combined: job.signers.clone(),
            blamed: vec![],
            disagreeing: vec![],
        })
    }

    async fn bls_sign(
        &mut self,
        share: &Share,
        job: &Signing,
        message: &[u8],
    ) -> Result<Signature> {
        let key = share
            .bls()
            .ok_or_else(|| Error::Parameters("not a BLS share".into()))?;
        let config = if job.any_t_plus_1 {
            SignConfig::any_t_plus_1(job.session, job.signers.clone(), job.timeout)
        } else {
            SignConfig::new(job.session, job.signers.clone(), job.timeout)
        };
        let transport = self.transport.as_mut().ok_or_else(lost)?;
        let rng = &mut rand_core::UnwrapErr(getrandom::SysRng);
        let signed = bls_sign(&self.party, key, &config, message, transport, rng).await?;
        Ok(Signature {
            bytes: signed.signature.to_vec(),
            combined: signed.combined,
            blamed: signed.blamed,
            disagreeing: signed.disagreeing,
        })
    }

    /// Refuses a share that is not this party's, and signers it cannot sign with.
    fn check(&self, share: &Share, job: &Signing) -> Result<()> {
        if share.me() != self.me() {
            return Err(Error::Parameters(format!(
                "the share is party {}'s, this is party {}",
                share.me(),
                self.me()
            )));
        }
        share
            .check_signers(&job.signers)
            .map_err(|e| Error::Parameters(e.to_string()))
    }

    /// A net for one run among `participants`, on this party's transport.
    fn net(
        &mut self,
        session: SessionId,
        participants: &[PartyIndex],
        timeout: Duration,
    ) -> Result<Net<Erased>> {
        // Checked before the transport is lent: a refused net would keep it.
        Net::<Erased>::participants_of(&self.party, participants)?;
        let transport = self.transport.take().ok_or_else(lost)?;
        let config = NetConfig {
            timeout,
            reliable: false,
        };
        Net::new(transport, self.party.clone(), session, participants, config)
    }

    fn take_back(&mut self, net: Net<Erased>) -> Result<()> {
        self.transport = Some(net.into_transport().map_err(|_| lost())?);
        Ok(())
    }
}

/// The test hook's cheat in an external scheme's run: misdealing to a victim.
#[cfg(feature = "adversary")]
async fn cheat(
    net: &Net<Erased>,
    misbehaviour: Option<crate::adversary::Misbehaviour>,
) -> Result<()> {
    match misbehaviour {
        None => Ok(()),
        Some(crate::adversary::Misbehaviour::MisdealTo(victim)) => {
            net.misdeal_to(victim).await;
            Ok(())
        }
        Some(_) => Err(Error::Parameters(
            "FROST and ECDSA take misdeal:J only".into(),
        )),
    }
}

/// An external scheme's key generation over `net`: its primes first for threshold ECDSA (the
/// others told while this party searches).
async fn external_keygen(
    net: &Net<Erased>,
    (scheme, t): (Scheme, usize),
    primes: Option<PrimeSource>,
) -> Result<external::Held> {
    let primes = match (scheme.needs_primes(), primes) {
        (false, _) => None,
        (true, Some(PrimeSource::Given(p))) => Some(p),
        (true, Some(PrimeSource::Search { note, search })) => {
            if let Some(note) = note {
                net.announce(&note).await;
            }
            Some(search().map_err(|e| Error::Parameters(format!("safe primes: {e}")))?)
        }
        (true, None) => Some(generate_primes(|_| {})),
    };
    external::keygen(net, scheme, t, primes).await
}
