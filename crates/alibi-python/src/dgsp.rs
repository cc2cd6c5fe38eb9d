//! DGSP (alibi-dgsp), the SPHINCS+-based fully dynamic group signature. The manager lives in a
//! directory laid out as `alibi group manager-keygen` makes it (`manager.sk`, `manager.pk`,
//! `members.redb`), so the CLI and Python manage the same group; a member's state is the bytes of
//! the CLI's member files (credential, secret key, pending keys, certificates).

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use alibi_dgsp::storage::{MemoryRevokedList, RedbStore, MANAGER_DIR};
use alibi_dgsp::{
    judge, request_keys, take_one_time_key, verify, CertificateList, CertificateRequest,
    Credential, Error as DgspError, GroupSignature, Manager, ManagerPublicKey, ManagerSecretKey,
    Params, PendingKeys, UserKey,
};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{dgsp as err, StoreError};
use crate::secret::secret_repr;
use crate::{bytes, choose_named, keygen_rng, os_rng, BytesLike};

type Store = Arc<RedbStore>;

fn params(name: &str) -> PyResult<Params> {
    choose_named("DGSP parameter set", name, &Params::ALL, Params::name)
}

/// The names of the twelve SPHINCS+ parameter sets DGSP runs on.
#[pyfunction]
fn dgsp_params() -> Vec<&'static str> {
    Params::ALL.iter().map(|p| p.name()).collect()
}

fn store_error(path: &Path, e: std::io::Error) -> PyErr {
    StoreError::new_err(format!("{}: {e}", path.display()))
}

/// Creates `path` with `data`, readable by the owner only when `secret`; never replaces a file.
fn create_file(path: &Path, data: &[u8], secret: bool) -> PyResult<()> {
    let mode = if secret { 0o600 } else { 0o644 };
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .map_err(|e| store_error(path, e))?;
    f.write_all(data)
        .and_then(|()| f.sync_all())
        .map_err(|e| store_error(path, e))
}

fn open_store(db: &Path) -> PyResult<Store> {
    RedbStore::open(db)
        .map(Arc::new)
        .map_err(|e| err("members database", e))
}

fn signature(p: Params, sig: &[u8]) -> PyResult<GroupSignature> {
    GroupSignature::from_bytes(p, sig).map_err(|e| err("group signature", e))
}

fn manager_pk(data: &[u8]) -> PyResult<ManagerPublicKey> {
    ManagerPublicKey::from_bytes(data).map_err(|e| err("manager public key", e))
}

/// A group manager on its directory. The members database stays open (locked against other
/// processes, the CLI's too) while this object lives.
#[pyclass(module = "alibi.dgsp", frozen)]
pub struct DgspManager {
    manager: Manager<Store, Store>,
    dir: PathBuf,
}

#[pymethods]
impl DgspManager {
    /// A new manager of `params` (e.g. "shake-128f") in `directory` (created if missing): its
    /// secret key (mode 0600), public key and members database. A directory that holds a manager
    /// already is refused (`StoreError`). With `seed` (32 bytes) the same seed gives the same
    /// manager key.
    #[staticmethod]
    #[pyo3(signature = (directory, params, seed=None))]
    fn create(
        py: Python<'_>,
        directory: PathBuf,
        params: &str,
        seed: Option<BytesLike<'_>>,
    ) -> PyResult<Self> {
        let p = self::params(params)?;
        let mut rng = keygen_rng(seed.as_deref())?;
        let [skp, pkp, db] = MANAGER_DIR.map(|f| directory.join(f));
        if let Some(f) = [&skp, &pkp, &db].into_iter().find(|f| f.exists()) {
            return Err(StoreError::new_err(format!(
                "{} already holds a group manager ({}); replacing it would break every member",
                directory.display(),
                f.display()
            )));
        }
        std::fs::create_dir_all(&directory).map_err(|e| store_error(&directory, e))?;
        let sk = py.detach(|| ManagerSecretKey::generate(p, &mut rng));
        // Files and the database's first transaction (an fsync): off the interpreter.
        let made = py.detach(|| {
            create_file(&skp, &sk.to_bytes(), true)?;
            create_file(&pkp, &sk.public_key().to_bytes(), false)?;
            let store = open_store(&db)?;
            std::fs::set_permissions(&db, std::os::unix::fs::PermissionsExt::from_mode(0o600))
                .map_err(|e| store_error(&db, e))?;
            Ok(store)
        });
        match made {
            Ok(store) => Ok(DgspManager {
                manager: Manager::new(sk, store.clone(), store),
                dir: directory,
            }),
            Err(e) => {
                // No half-made manager is left behind (none of these files existed before).
                for f in [&skp, &pkp, &db] {
                    let _ = std::fs::remove_file(f);
                }
                Err(e)
            }
        }
    }

    /// The manager of `directory` (made by `create` or `alibi group manager-keygen`).
    #[staticmethod]
    fn load(py: Python<'_>, directory: PathBuf) -> PyResult<Self> {
        let [skp, _, db] = MANAGER_DIR.map(|f| directory.join(f));
        let b = zeroize::Zeroizing::new(std::fs::read(&skp).map_err(|e| store_error(&skp, e))?);
        let sk = ManagerSecretKey::from_bytes(&b).map_err(|e| err("manager secret key", e))?;
        let store = py.detach(|| open_store(&db))?;
        Ok(DgspManager {
            manager: Manager::new(sk, store.clone(), store),
            dir: directory,
        })
    }

    /// The parameter set's name.
    #[getter]
    fn params(&self) -> &'static str {
        self.manager.public_key().params().name()
    }

    /// The manager's public key (the contents of `manager.pk`).
    fn public_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.manager.public_key().to_bytes())
    }

    /// Registers a member under a unique `username`: (member id, credential file bytes, as `alibi
    /// group join --cred` writes them). `GroupError` for a name taken.
    fn join<'py>(&self, py: Python<'py>, username: &str) -> PyResult<(u64, Bound<'py, PyBytes>)> {
        let (id, cid_star) = py
            .detach(|| self.manager.join(username))
            .map_err(|e| err("join", e))?;
        let c = Credential::new(self.manager.public_key().params(), id, &cid_star)
            .map_err(|e| err("credential", e))?;
        Ok((id, bytes(py, &c.to_file_bytes())))
    }

    /// Certifies a member's certificate request: the certificates, in the order of its one-time
    /// keys. `GroupError` for a revoked or unknown member or a wrong credential.
    fn cert<'py>(&self, py: Python<'py>, request: BytesLike<'_>) -> PyResult<Bound<'py, PyBytes>> {
        let p = self.manager.public_key().params();
        if Params::of_encoding(&request).ok() != Some(p) {
            return Err(crate::errors::KeyMismatch::new_err(format!(
                "the request is not for this group's {} parameters",
                p.name()
            )));
        }
        let r =
            CertificateRequest::from_bytes(&request).map_err(|e| err("certificate request", e))?;
        let issued = py
            .detach(|| {
                self.manager
                    .gen_cert(r.id(), r.credential().cid_star(), r.public_keys())
            })
            .map_err(|e| match e {
                // The member is revoked: a refusal of the step, not a signature's verdict.
                DgspError::Revoked => {
                    crate::errors::GroupError::new_err(format!("member {} is revoked", r.id()))
                }
                e => err("certificate request", e),
            })?;
        let list = CertificateList::new(p, issued).map_err(|e| err("certificates", e))?;
        Ok(bytes(py, &list.to_bytes()))
    }

    /// Opens a valid signature: (member id, username, pi), pi for `judge`. `InvalidSignature` if
    /// it does not verify.
    fn open<'py>(
        &self,
        py: Python<'py>,
        msg: BytesLike<'_>,
        sig: BytesLike<'_>,
    ) -> PyResult<(u64, String, Bound<'py, PyBytes>)> {
        let s = signature(self.manager.public_key().params(), &sig)?;
        let o = py
            .detach(|| self.manager.open(&msg, &s))
            .map_err(|e| err("group signature", e))?;
        Ok((o.id, o.username, bytes(py, &o.pi)))
    }

    /// Revokes member `id`: its signatures no longer verify here, and it gets no certificates.
    fn revoke(&self, py: Python<'_>, id: u64) -> PyResult<()> {
        py.detach(|| self.manager.revoke(&[id]))
            .map_err(|e| err("revoke", e))
    }

    /// Returns if `sig` is a valid group signature on `msg` by a member not revoked; raises
    /// `Revoked` for a revoked signer, `InvalidSignature` if it does not verify.
    fn verify(&self, py: Python<'_>, msg: BytesLike<'_>, sig: BytesLike<'_>) -> PyResult<()> {
        let pkm = self.manager.public_key();
        let s = signature(pkm.params(), &sig)?;
        py.detach(|| verify(pkm, &msg, &s, self.manager.revoked()))
            .map_err(|e| err("group signature", e))
    }

    fn __repr__(&self) -> String {
        format!(
            "<alibi dgsp.Manager ({}, {})>",
            self.manager.public_key().params().name(),
            self.dir.display()
        )
    }
}

/// A member's secret key (the contents of the CLI's `--user-sk` file).
#[pyclass(module = "alibi.dgsp", frozen)]
pub struct DgspUserKey(UserKey);

#[pymethods]
impl DgspUserKey {
    /// Decodes a member's secret key.
    #[staticmethod]
    fn from_bytes(data: BytesLike<'_>) -> PyResult<Self> {
        UserKey::from_bytes(&data)
            .map(DgspUserKey)
            .map_err(|e| err("member secret key", e))
    }

    /// The encoding (bytes Python cannot wipe: write them to a 0600 file at once).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.0.to_bytes())
    }

    /// The member id.
    #[getter]
    fn id(&self) -> u64 {
        self.0.id()
    }

    /// The parameter set's name.
    #[getter]
    fn params(&self) -> &'static str {
        self.0.params().name()
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    fn __repr__(&self) -> String {
        secret_repr(
            "dgsp.UserKey",
            &format!("{}, member {}", self.0.params().name(), self.0.id()),
        )
    }
}

fn credential(data: &[u8]) -> PyResult<Credential> {
    Credential::from_file_bytes(data).map_err(|e| err("credential", e))
}

/// A certificate request for `count` fresh one-time keys (member side), from the member's
/// credential file and secret key (made from the credential when None): (the credential, now
/// counting the keys, to store first; the secret key; the request for the manager; the pending
/// keys to keep).
#[pyfunction]
#[pyo3(signature = (credential, count, user_key=None))]
#[allow(clippy::type_complexity)]
fn dgsp_csr<'py>(
    py: Python<'py>,
    credential: BytesLike<'_>,
    count: u32,
    user_key: Option<&DgspUserKey>,
) -> PyResult<(
    Bound<'py, PyBytes>,
    DgspUserKey,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
)> {
    if !(1..=1024).contains(&count) {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "count: 1 to 1024 one-time keys",
        ));
    }
    let mut c = self::credential(&credential)?;
    let user = match user_key {
        Some(u) => UserKey::from_bytes(&u.0.to_bytes()).map_err(|e| err("member secret key", e))?,
        None => UserKey::generate(c.params(), c.id(), &mut os_rng()),
    };
    let (request, pending) = py
        .detach(|| request_keys(&mut c, &user, count, &mut os_rng()))
        .map_err(|e| err("credential", e))?;
    Ok((
        bytes(py, &c.to_file_bytes()),
        DgspUserKey(user),
        bytes(py, &request.to_bytes()),
        bytes(py, &pending.to_file_bytes()),
    ))
}

/// Signs `msg` with the member's next pending one-time key (member side): (the group
/// signature, the pending keys and certificates left, the credential counting the key used or
/// None). Store the three files before publishing the signature. With `credential`, pending keys
/// restored from an older copy are refused (`GroupError`) instead of reusing a one-time key.
#[pyfunction]
#[pyo3(signature = (user_key, pending, certificates, manager_public_key, msg, credential=None))]
#[allow(clippy::type_complexity)]
fn dgsp_sign<'py>(
    py: Python<'py>,
    user_key: &DgspUserKey,
    pending: BytesLike<'_>,
    certificates: BytesLike<'_>,
    manager_public_key: BytesLike<'_>,
    msg: BytesLike<'_>,
    credential: Option<BytesLike<'_>>,
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Option<Bound<'py, PyBytes>>,
)> {
    let (user, p) = (&user_key.0, user_key.0.params());
    let pkm = manager_pk(&manager_public_key)?;
    let mut pend = PendingKeys::from_file_bytes(p, &pending).map_err(|e| err("pending keys", e))?;
    let mut certs =
        CertificateList::from_bytes(p, &certificates).map_err(|e| err("certificates", e))?;
    let mut cred = credential.as_deref().map(self::credential).transpose()?;
    let sig = py
        .detach(|| {
            let key = take_one_time_key(user, &mut pend, &mut certs, cred.as_mut(), &pkm)?;
            Ok::<_, DgspError>(user.sign(key, &msg).to_bytes())
        })
        .map_err(|e| err("member files", e))?;
    Ok((
        bytes(py, &sig),
        bytes(py, &pend.to_file_bytes()),
        bytes(py, &certs.to_bytes()),
        cred.map(|c| bytes(py, &c.to_file_bytes())),
    ))
}

/// Returns if `sig` is a valid group signature on `msg` under the manager's public key, without
/// a revocation check (use `Manager.verify` for that); raises `InvalidSignature` if not.
#[pyfunction]
fn dgsp_verify(
    py: Python<'_>,
    manager_public_key: BytesLike<'_>,
    msg: BytesLike<'_>,
    sig: BytesLike<'_>,
) -> PyResult<()> {
    let pkm = manager_pk(&manager_public_key)?;
    let s = signature(pkm.params(), &sig)?;
    py.detach(|| verify(&pkm, &msg, &s, &MemoryRevokedList::default()))
        .map_err(|e| err("group signature", e))
}

/// Returns if the opening (member `id`, proof `pi`) shows that member `id` made `sig` on `msg`
/// (anyone can check); raises `InvalidOpening` if not, `InvalidSignature` for a bad signature.
#[pyfunction]
fn dgsp_judge(
    py: Python<'_>,
    manager_public_key: BytesLike<'_>,
    msg: BytesLike<'_>,
    sig: BytesLike<'_>,
    id: u64,
    pi: BytesLike<'_>,
) -> PyResult<()> {
    let pkm = manager_pk(&manager_public_key)?;
    let s = signature(pkm.params(), &sig)?;
    py.detach(|| judge(&pkm, &msg, &s, id, &pi))
        .map_err(|e| err("opening", e))
}

/// Adds the classes and functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<DgspManager>()?;
    m.add_class::<DgspUserKey>()?;
    m.add_function(wrap_pyfunction!(dgsp_params, m)?)?;
    m.add_function(wrap_pyfunction!(dgsp_csr, m)?)?;
    m.add_function(wrap_pyfunction!(dgsp_sign, m)?)?;
    m.add_function(wrap_pyfunction!(dgsp_verify, m)?)?;
    m.add_function(wrap_pyfunction!(dgsp_judge, m)?)
}
