//! A relay running inside the calling process on an ephemeral loopback port: what the tests, the
//! benches and the demo start instead of `alibi relay serve`.

use std::sync::Arc;

use crate::server::{serve, Config};
use crate::store::redb::RedbRelayStore;
use crate::store::RelayStore;
use crate::{Error, Result};

/// An in-process relay; it stops (and its temporary store is removed) when dropped.
pub struct LocalRelay {
    /// Its base URL, `http://127.0.0.1:PORT`.
    pub url: String,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
    _dir: Option<tempfile::TempDir>,
}

impl Drop for LocalRelay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn io_err(e: impl core::fmt::Display) -> Error {
    Error::Store(e.to_string())
}

impl LocalRelay {
    /// Starts a relay on a fresh redb store in a temporary directory (needs a Tokio runtime).
    pub async fn start(config: Config) -> Result<Self> {
        let dir = tempfile::tempdir().map_err(io_err)?;
        let store = RedbRelayStore::create(dir.path().join("relay.redb"))?;
        let mut relay = Self::start_on(Arc::new(store), config).await?;
        relay._dir = Some(dir);
        Ok(relay)
    }

    /// Starts a relay on `store`.
    pub async fn start_on(store: Arc<dyn RelayStore>, config: Config) -> Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(io_err)?;
        let url = format!("http://{}", listener.local_addr().map_err(io_err)?);
        let task = tokio::spawn(serve(listener, store, config));
        Ok(Self {
            url,
            task,
            _dir: None,
        })
    }
}
