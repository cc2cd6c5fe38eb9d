//! The demo `alibi` runs with no arguments, on embedded defaults: the main job first (threshold BLS
//! between five parties over Signal group channels through a relay started in this process), then
//! a short tour of the primitives underneath.

use crate::failure::usage as fail;
use crate::failure::{CmdResult, Failure};
use crate::rng::os_rng;
use crate::say;
use alibi_falcon::{hash_to_point, is_short, Level, Signature, SigningKey};
use alibi_ringsig::{Ring, RingSignature};
use std::time::Instant;

/// Falcon keygen, sign, verify and an open preimage sample at both levels, then deniable ring
/// signatures built on them, narrated.
pub fn run() -> CmdResult {
    say!("alibi demo: what the toolkit does, on embedded defaults (nothing to install)\n")?;
    mpc()?;
    falcon()?;
    ring()?;
    akem()?;
    tachyon()?;
    group()?;
    say!("done: try `alibi falcon|ring|akem|tachyon|group ...` on files (see `alibi --help`).")?;
    Ok(())
}

/// The main job: a relay in this process (ephemeral loopback port, temporary redb store), five
/// parties with PQXDH sessions, key generation (t = 3, n = 5) and a threshold signature over group
/// channels, checked by plain BLS verification; then the same over pairwise channels against
/// group ones with a 50 ms delay per relay request.
fn mpc() -> CmdResult {
    use alibi_mpc::local::{endpoints, keygen_and_sign, prepare_all, register_parties};
    use alibi_mpc::relay::Mode;
    use alibi_mpc::scheme::Scheme;
    use alibi_relay::local::LocalRelay;
    use alibi_relay::server::Config;
    use std::time::Duration;

    say!("== threshold BLS over Signal group channels, through our relay ==")?;
    crate::net::runtime()?.block_on(async {
        let step = |what: String, t: Instant| {
            say!("{:>8.1} ms  {what}", t.elapsed().as_secs_f64() * 1e3)
        };
        let t = Instant::now();
        let relay = LocalRelay::start(Config::default()).await.map_err(fail)?;
        step(format!("relay up at {} (temporary redb store)", relay.url), t)?;
        let t = Instant::now();
        let parties = register_parties(&relay.url, &[1, 2, 3, 4, 5], Mode::Group)
            .await
            .map_err(fail)?;
        step("5 parties registered: accounts, signed/one-time/Kyber prekeys, access keys".into(), t)?;
        let t = Instant::now();
        let (parties, requests) = prepare_all(parties).await.map_err(fail)?;
        step(format!("PQXDH sessions opened and sender keys handed out ({requests} requests)"), t)?;
        let bls = (Scheme::Bls, 3);
        let wait = Duration::from_secs(30);
        let (_, shares, signature, timing) =
            keygen_and_sign(endpoints(parties), bls, b"alibi demo", wait, |_| None)
                .await
                .map_err(fail)?;
        say!(
            "{:>8.1} ms  key generation, t = 3, n = 5 (commit, decommit, signed shares, complaints, reveals, confirm, close)",
            timing.keygen.as_secs_f64() * 1e3
        )?;
        say!(
            "{:>8.1} ms  threshold signature by parties 1-4, every partial checked by pairing",
            timing.sign.as_secs_f64() * 1e3
        )?;
        let t = Instant::now();
        let ok = alibi_mpc::bls::verify(shares[0].public_key(), b"alibi demo", &signature).is_ok();
        step(format!("plain BLS verification under the group key: {ok}"), t)?;
        if !ok {
            return Err(Failure::Invalid("demo threshold signature does not verify".into()));
        }

        say!("   pairwise against group channels, 50 ms per relay request, after a first run:")?;
        let slow = LocalRelay::start(Config {
            delay: Duration::from_millis(50),
            ..Config::default()
        }).await.map_err(fail)?;
        let mut figures = vec![];
        for mode in [Mode::Pairwise, Mode::Group] {
            let parties = register_parties(&slow.url, &[1, 2, 3, 4, 5], mode)
                .await
                .map_err(fail)?;
            let (parties, _, _, _) =
                keygen_and_sign(endpoints(parties), bls, b"warm-up", wait, |_| None)
                    .await
                    .map_err(fail)?;
            let (_, _, _, timing) = keygen_and_sign(parties, bls, b"measured", wait, |_| None)
                .await
                .map_err(fail)?;
            say!(
                "   {mode:>8}: keygen {:>6.0} ms, signing {:>5.0} ms, {} requests",
                timing.keygen.as_secs_f64() * 1e3,
                timing.sign.as_secs_f64() * 1e3,
                timing.requests
            )?;
            figures.push(timing);
        }
        let gain = alibi_bench::mpc::faster;
        say!(
            "   group is {:.0}% faster at key generation and {:.0}% at signing (`alibi mpc bench` for the full grid)\n",
            gain(figures[0].keygen, figures[1].keygen),
            gain(figures[0].sign, figures[1].sign)
        )?;
        Ok(())
    })
}

/// Alice and Bob each hold a Falcon-512 key; a ring signature proves that one of them signed, and
/// either can deny it was them.
fn ring() -> CmdResult {
    say!("== deniable ring signatures (GANDALF over Falcon-512) ==")?;
    let alice = SigningKey::generate(Level::Falcon512, &mut os_rng());
    let bob = SigningKey::generate(Level::Falcon512, &mut os_rng());
    let carol = SigningKey::generate(Level::Falcon512, &mut os_rng());
    for members in [vec![&alice, &bob], vec![&alice, &bob, &carol]] {
        let ring =
            Ring::new(members.iter().map(|k| k.verifying_key().clone()).collect()).map_err(fail)?;
        let msg = b"meet at the usual place";
        let t = Instant::now();
        let sig = ring.sign(&bob.expand(), msg, &mut os_rng()).map_err(fail)?;
        let us = t.elapsed().as_secs_f64() * 1e6;
        let bytes = sig.to_bytes();
        let back = RingSignature::from_bytes(&ring, &bytes).map_err(fail)?;
        let ok = ring.verify(msg, &back).is_ok();
        let other = ring.verify(b"meet elsewhere", &back).is_ok();
        say!(
            "[{} members] Bob signs ({} B, {us:.0} us); verifies: {ok}; on another message: {other}",
            ring.len(),
            bytes.len()
        )?;
        if !ok || other {
            return Err(Failure::Invalid("demo ring signature check failed".into()));
        }
    }
    say!("   the signature shows that a member signed, not which one.")?;
    mayo_ring()?;
    say!("")?;
    Ok(())
}

/// The same with MAYO keys (MAYO-RS), at MAYO_1 and MAYO_2.
fn mayo_ring() -> CmdResult {
    use alibi_mayo::{Params, SigningKey as MayoKey};
    use alibi_ringsig::mayo_rs::{Ring as MayoRing, RingSignature as MayoSig};
    for p in [Params::Mayo1, Params::Mayo2] {
        let alice = MayoKey::generate(p, &mut os_rng());
        let bob = MayoKey::generate(p, &mut os_rng());
        let ring = MayoRing::new(vec![
            alice.verifying_key().clone(),
            bob.verifying_key().clone(),
        ])
        .map_err(fail)?;
        let msg = b"meet at the usual place";
        let t = Instant::now();
        let sig = ring.sign(&alice, msg, &mut os_rng()).map_err(fail)?;
        let us = t.elapsed().as_secs_f64() * 1e6;
        let bytes = sig.to_bytes();
        let back = MayoSig::from_bytes(&ring, &bytes).map_err(fail)?;
        let ok = ring.verify(msg, &back).is_ok();
        let other = ring.verify(b"meet elsewhere", &back).is_ok();
        say!(
            "[MAYO-RS {p}, 2 members] Alice signs ({} B, {us:.0} us); verifies: {ok}; on another message: {other}",
            bytes.len()
        )?;
        if !ok || other {
            return Err(Failure::Invalid("demo MAYO-RS check failed".into()));
        }
    }
    Ok(())
}

/// SHADOWFAX: Alice sends Bob a key; Bob can also make such a ciphertext alone, so he cannot prove
/// to anyone that Alice sent it.
fn akem() -> CmdResult {
    use alibi_akem::{pq::Suite, shadowfax};
    say!("== SHADOWFAX hybrid deniable AKEM (X25519 + ML-KEM-512 + GANDALF) ==")?;
    let suite = Suite::MlKem512Falcon512;
    let alice = shadowfax::SecretKey::generate(suite, &mut os_rng());
    let bob = shadowfax::SecretKey::generate(suite, &mut os_rng());
    let t = Instant::now();
    let (ct, key) = shadowfax::encap(&alice, bob.public_key(), &mut os_rng()).map_err(fail)?;
    let us = t.elapsed().as_secs_f64() * 1e6;
    let got = shadowfax::decap(&bob, alice.public_key(), &ct).map_err(fail)?;
    say!(
        "Alice -> Bob: ciphertext {} B ({us:.0} us); Bob recovers the key: {}",
        ct.len(),
        got == key
    )?;
    let (fake, fake_key) =
        shadowfax::fake_encap(&bob, alice.public_key(), &mut os_rng()).map_err(fail)?;
    let accepted = shadowfax::decap(&bob, alice.public_key(), &fake).map_err(fail)? == fake_key;
    say!("Bob alone forges one \"from Alice\" that decapsulates the same way: {accepted}")?;
    if got != key || !accepted {
        return Err(Failure::Invalid("demo AKEM check failed".into()));
    }
    say!("   so a transcript proves nothing about Alice to a third party.\n")?;
    Ok(())
}

/// TACHYON: many-time signatures from a compact knapsack, fast to sign and verify.
fn tachyon() -> CmdResult {
    use alibi_tachyon::{Level, SigningKey};
    say!("== TACHYON-128 (generalized compact knapsack) ==")?;
    let t = Instant::now();
    let sk = SigningKey::generate(Level::T128, &mut os_rng());
    let vk = sk.verifying_key();
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let sig = sk.sign(b"fast", &mut os_rng());
    let us = t.elapsed().as_secs_f64() * 1e6;
    let ok = vk.verify(b"fast", &sig).is_ok();
    let other = vk.verify(b"slow", &sig).is_ok();
    say!(
        "keygen {ms:.0} ms (public key {} B); sign {us:.0} us ({} B); verifies: {ok}; on another message: {other}\n",
        vk.to_bytes().len(),
        sig.to_bytes().len()
    )?;
    if !ok || other {
        return Err(Failure::Invalid("demo TACHYON check failed".into()));
    }
    Ok(())
}

/// DGSP: Alice signs for the group; verifiers learn only that a member signed; the manager can
/// open it, a judge can check the opening, and revocation ends her certificates.
fn group() -> CmdResult {
    use alibi_dgsp::storage::{MemoryPlm, MemoryRevokedList};
    use alibi_dgsp::{csr, judge, verify, Manager, Params, UserKey};
    say!("== DGSP group signature (SPHINCS+-SHAKE-128f) ==")?;
    let p = Params::Shake128f;
    let m = Manager::generate(
        p,
        MemoryPlm::default(),
        MemoryRevokedList::default(),
        &mut os_rng(),
    );
    let (id, cid) = m.join("alice").map_err(fail)?;
    let alice = UserKey::generate(p, id, &mut os_rng());
    let (seeds, pks) = csr(&alice, 1, &mut os_rng());
    let t = Instant::now();
    let certs = m.gen_cert(id, &cid, &pks).map_err(fail)?;
    let cert_ms = t.elapsed().as_secs_f64() * 1e3;
    let key = alice
        .accept(seeds, certs, m.public_key())
        .map_err(fail)?
        .pop();
    let key = key.ok_or_else(|| Failure::Invalid("no certificate".into()))?;
    let sig = alice.sign(key, b"minutes of the meeting");
    let ok = verify(m.public_key(), b"minutes of the meeting", &sig, m.revoked()).is_ok();
    let opened = m.open(b"minutes of the meeting", &sig).map_err(fail)?;
    let judged = judge(
        m.public_key(),
        b"minutes of the meeting",
        &sig,
        opened.id,
        &opened.pi,
    )
    .is_ok();
    m.revoke(&[id]).map_err(fail)?;
    let after = verify(m.public_key(), b"minutes of the meeting", &sig, m.revoked()).is_ok();
    say!(
        "certificate {cert_ms:.0} ms; signature {} B verifies: {ok}; opened to {}, judge agrees: {judged}; after revocation verifies: {after}\n",
        sig.to_bytes().len(),
        opened.username
    )?;
    if !ok || !judged || after {
        return Err(Failure::Invalid("demo DGSP check failed".into()));
    }
    Ok(())
}

fn falcon() -> CmdResult {
    say!("== Falcon (round-3 v1.2) with an open trapdoor sampler ==")?;
    for level in Level::ALL {
        let t = Instant::now();
        let sk = SigningKey::generate(level, &mut os_rng());
        let vk = sk.verifying_key();
        say!(
            "[{level}] keygen: public key {} B, secret key {} B ({:.1} ms)",
            vk.to_bytes().len(),
            sk.to_bytes().len(),
            t.elapsed().as_secs_f64() * 1e3
        )?;
        let esk = sk.expand();
        let msg = b"alibi: deniable post-quantum handshakes start here";
        let t = Instant::now();
        let sig = esk.sign(msg, &mut os_rng());
        let bytes = sig.to_bytes();
        say!(
            "[{level}] sign: {} B signature ({:.0} us)",
            bytes.len(),
            t.elapsed().as_secs_f64() * 1e6
        )?;
        let sig = Signature::from_bytes(&bytes).map_err(fail)?;
        let ok = vk.verify(msg, &sig).is_ok();
        let forged = vk.verify(b"a different message", &sig).is_ok();
        say!("[{level}] verify: genuine message {ok}, other message {forged}")?;
        if !ok || forged {
            return Err(Failure::Invalid("demo signature check failed".into()));
        }
        // The open sampler: a short preimage of an arbitrary target, as ring signatures use it.
        let c = hash_to_point(b"any target", b"chosen by the caller", level);
        let p = esk.sample_short_preimage(&c, &mut os_rng()).map_err(fail)?;
        let back = vk.recover_s1(&c, &p.s2).map_err(fail)?;
        say!(
            "[{level}] preimage: s1 + s2*h = c holds: {}, ||(s1,s2)||^2 = {} <= {}: {}\n",
            back == p.s1,
            p.norm_sq(),
            level.beta_sq(),
            is_short(level, &p.s1, &p.s2)
        )?;
    }
    Ok(())
}
