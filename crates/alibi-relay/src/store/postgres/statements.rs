//! The statements of a group commit, prepared once per connection.

use super::Conn;

/// Makes a counter row for every mailbox a group touches (zero if new), so that all of them can
/// be locked.
const NEW_MAILBOXES_SQL: &str = "INSERT INTO mailboxes (uuid, device, messages, bytes)
    SELECT x.uuid, x.device, 0, 0 FROM UNNEST($1::bytea[], $2::int2[]) AS x(uuid, device)
    ORDER BY 1, 2 ON CONFLICT DO NOTHING";
/// The counters of a group's mailboxes, locked in key order (two groups, of this relay or
/// another, then wait for each other instead of deadlocking, and the quota check is exact).
const QUOTA_SQL: &str = "SELECT m.uuid, m.device, m.messages, m.bytes FROM mailboxes m
    JOIN UNNEST($1::bytea[], $2::int2[]) AS x(uuid, device)
        ON m.uuid = x.uuid AND m.device = x.device
    ORDER BY m.uuid, m.device FOR UPDATE OF m";
/// The senders' shares of those mailboxes (changed only under the mailbox's lock).
const SENDER_QUOTA_SQL: &str = "SELECT s.uuid, s.device, s.sender, s.messages, s.bytes
    FROM mailbox_senders s
    JOIN UNNEST($1::bytea[], $2::int2[], $3::bytea[]) AS x(uuid, device, sender)
        ON s.uuid = x.uuid AND s.device = x.device AND s.sender = x.sender";
const INSERT_SHARED_SQL: &str = "INSERT INTO shared_mrm (key, refs, data)
    SELECT * FROM UNNEST($1::bytea[], $2::int4[], $3::bytea[])";
// One statement for a whole group, in the order sent (a mailbox is read by `seq`).
const INSERT_MESSAGES_SQL: &str =
    "INSERT INTO messages (uuid, device, guid, shared, envelope, size, created, sender)
    SELECT x.uuid, x.device, x.guid, x.shared, x.envelope, x.size, x.created, x.sender
    FROM UNNEST($1::bytea[], $2::int2[], $3::bytea[], $4::bytea[], $5::bytea[], $6::int8[],
        $7::int8[], $8::bytea[])
    WITH ORDINALITY AS x(uuid, device, guid, shared, envelope, size, created, sender, n)
    ORDER BY n";
const NOTIFY_SQL: &str = "SELECT pg_notify('alibi_mail', x) FROM UNNEST($1::text[]) AS x";
// A device deletes only its own envelopes (the key holds the device).
const DELETE_ACKED_SQL: &str =
    "DELETE FROM messages m USING UNNEST($1::bytea[], $2::bytea[], $3::int2[])
        AS x(guid, uuid, device)
    WHERE m.guid = x.guid AND m.uuid = x.uuid AND m.device = x.device
    RETURNING m.guid, m.shared, m.uuid, m.device, m.sender, m.size";
/// Adds to the counters of locked mailboxes (a negative change takes away).
const CHANGE_MAILBOXES_SQL: &str = "UPDATE mailboxes m
    SET messages = m.messages + x.n, bytes = m.bytes + x.b
    FROM UNNEST($1::bytea[], $2::int2[], $3::int8[], $4::int8[]) AS x(uuid, device, n, b)
    WHERE m.uuid = x.uuid AND m.device = x.device";
const CHANGE_SENDERS_SQL: &str =
    "INSERT INTO mailbox_senders (uuid, device, sender, messages, bytes)
    SELECT * FROM UNNEST($1::bytea[], $2::int2[], $3::bytea[], $4::int8[], $5::int8[])
        AS x(uuid, device, sender, n, b) ORDER BY 1, 2, 3
    ON CONFLICT (uuid, device, sender) DO UPDATE
    SET messages = mailbox_senders.messages + EXCLUDED.messages,
        bytes = mailbox_senders.bytes + EXCLUDED.bytes";
const DROP_EMPTY_SENDERS_SQL: &str = "DELETE FROM mailbox_senders s
    USING UNNEST($1::bytea[], $2::int2[], $3::bytea[]) AS x(uuid, device, sender)
    WHERE s.uuid = x.uuid AND s.device = x.device AND s.sender = x.sender AND s.messages <= 0";

/// A group's statements, prepared on its connection before the transaction borrows it.
pub(super) struct Statements {
    pub(super) new_boxes: tokio_postgres::Statement,
    pub(super) quota: tokio_postgres::Statement,
    pub(super) share: tokio_postgres::Statement,
    pub(super) shared: tokio_postgres::Statement,
    pub(super) messages: tokio_postgres::Statement,
    pub(super) notify: tokio_postgres::Statement,
    pub(super) delete: tokio_postgres::Statement,
    pub(super) change: tokio_postgres::Statement,
    pub(super) senders: tokio_postgres::Statement,
    pub(super) drop_empty: tokio_postgres::Statement,
}

impl Statements {
    pub(super) async fn prepare(c: &mut Conn) -> std::result::Result<Self, tokio_postgres::Error> {
        Ok(Self {
            new_boxes: c.prepared(NEW_MAILBOXES_SQL).await?,
            quota: c.prepared(QUOTA_SQL).await?,
            share: c.prepared(SENDER_QUOTA_SQL).await?,
            shared: c.prepared(INSERT_SHARED_SQL).await?,
            messages: c.prepared(INSERT_MESSAGES_SQL).await?,
            notify: c.prepared(NOTIFY_SQL).await?,
            delete: c.prepared(DELETE_ACKED_SQL).await?,
            change: c.prepared(CHANGE_MAILBOXES_SQL).await?,
            senders: c.prepared(CHANGE_SENDERS_SQL).await?,
            drop_empty: c.prepared(DROP_EMPTY_SENDERS_SQL).await?,
        })
    }
}
