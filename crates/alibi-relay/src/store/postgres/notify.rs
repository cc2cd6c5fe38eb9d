//! Mail notifications between relay nodes on one database: `LISTEN alibi_mail` on a connection
//! of its own, each payload naming the node that sent it and the mailbox that has mail.

use std::sync::Arc;
use std::time::Duration;

use tokio_postgres::NoTls;
use uuid::Uuid;

use crate::store::MailSignal;

/// Listens for mail notifications on a connection of its own, re-established after a failure
/// (then a [`MailSignal::Resync`], since notifications sent meanwhile are lost).
pub(super) async fn listen(
    config: tokio_postgres::Config,
    node: Arc<str>,
    tx: tokio::sync::mpsc::Sender<MailSignal>,
) {
    use futures_util::StreamExt;
    let mut backoff = Duration::from_millis(100);
    loop {
        if tx.is_closed() {
            return;
        }
        if let Ok((client, mut conn)) = config.connect(NoTls).await {
            let (msg_tx, mut msgs) = tokio::sync::mpsc::unbounded_channel();
            let driver = tokio::spawn(async move {
                let mut stream = futures_util::stream::poll_fn(move |cx| conn.poll_message(cx));
                while let Some(Ok(m)) = stream.next().await {
                    if msg_tx.send(m).is_err() {
                        return;
                    }
                }
            });
            if client.batch_execute("LISTEN alibi_mail").await.is_ok()
                && tx.send(MailSignal::Resync).await.is_ok()
            {
                backoff = Duration::from_millis(100);
                loop {
                    let m = tokio::select! {
                        m = msgs.recv() => m,
                        // The relay is gone: drop the connection rather than wait for mail.
                        _ = tx.closed() => {
                            driver.abort();
                            return;
                        }
                    };
                    let Some(m) = m else { break };
                    if let tokio_postgres::AsyncMessage::Notification(n) = m {
                        if let Some(signal) = parse_signal(n.payload(), &node) {
                            if tx.send(signal).await.is_err() {
                                driver.abort();
                                return;
                            }
                        }
                    }
                }
            }
            driver.abort();
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(5));
    }
}

/// `"<node>:<uuid, 32 hex digits>:<device>"` (mail), with `":<credential fingerprint,
/// base64>"` after it (device replaced); `None` for anything else, and for this relay's own
/// notifications (it acts on its own sends and replacements directly).
pub(super) fn parse_signal(payload: &str, own: &str) -> Option<MailSignal> {
    let mut parts = payload.split(':');
    let (node, a, d) = (parts.next()?, parts.next()?, parts.next()?);
    let fingerprint = parts.next();
    if node == own || parts.next().is_some() {
        return None;
    }
    let (a, d) = (Uuid::parse_str(a).ok()?, d.parse().ok()?);
    match fingerprint {
        None => Some(MailSignal::Mail(a, d)),
        Some(f) => {
            let f = alibi_relay_api::b64::decode(f)?.try_into().ok()?;
            Some(MailSignal::DeviceReplaced(a, d, f))
        }
    }
}
