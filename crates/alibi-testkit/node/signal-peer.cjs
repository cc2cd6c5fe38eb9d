#!/usr/bin/env node
// One libsignal party, driven over stdin/stdout by the alibi interop tests.
//
// Protocol: one JSON command per stdin line, exactly one JSON response per stdout line. Binary
// values are lowercase hex. Failures answer {"error": "..."} and the process keeps running.
// The remote party is always the address ("alibi", 1).
//
// The libsignal package is found through NODE_PATH (see crates/alibi-testkit/src/node.rs). It works
// with @signalapp/libsignal-client 0.72.x (Buffer API, X3DH or PQXDH, no SPQR) and 0.90.x
// (Uint8Array API, PQXDH only). Every value handed to the library is a Buffer, which both accept.

'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');

const PKG = '@signalapp/libsignal-client';
const REMOTE_NAME = 'alibi';
const REMOTE_DEVICE = 1;
const SIGNED_PRE_KEY_ID = 7;
const PRE_KEY_ID = 3;
const KYBER_PRE_KEY_ID = 11;

let SignalClient = null; // set by loadLibrary()
let packageVersion = null;

async function loadLibrary() {
  const entry = require.resolve(PKG);
  try {
    SignalClient = require(PKG);
  } catch (e) {
    // 0.90 is an ES module; Node < 20.19 cannot require() it.
    if (e && e.code === 'ERR_REQUIRE_ESM') {
      const { pathToFileURL } = require('url');
      SignalClient = await import(pathToFileURL(entry).href);
    } else {
      throw e;
    }
  }
  // entry is <pkg>/dist/index.js
  const pkgJson = path.join(path.dirname(entry), '..', 'package.json');
  packageVersion = JSON.parse(fs.readFileSync(pkgJson, 'utf8')).version;
}

// ---------------------------------------------------------------------------------------------
// hex helpers

function fromHex(value, what) {
  if (typeof value !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(value)) {
    throw new Error(`${what}: expected a hex string`);
  }
  // Buffer.alloc is never pooled, so the native side sees a view over its own ArrayBuffer.
  const out = Buffer.alloc(value.length / 2);
  out.write(value, 'hex');
  return out;
}

function toHex(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function optHex(value, what) {
  return value === undefined || value === null ? null : fromHex(value, what);
}

function addrKey(address) {
  return `${address.name()}.${address.deviceId()}`;
}

// ---------------------------------------------------------------------------------------------
// in-memory stores (classes built once the library is loaded)

function makeStores(identityKeyPair, registrationId) {
  const S = SignalClient;

  class MemSessionStore extends S.SessionStore {
    constructor() {
      super();
      this.sessions = new Map();
    }
    async saveSession(address, record) {
      this.sessions.set(addrKey(address), Buffer.from(record.serialize()));
    }
    async getSession(address) {
      const bytes = this.sessions.get(addrKey(address));
      return bytes ? S.SessionRecord.deserialize(bytes) : null;
    }
    async getExistingSessions(addresses) {
      return addresses.map((address) => {
        const bytes = this.sessions.get(addrKey(address));
        if (!bytes) throw new Error(`no session for ${addrKey(address)}`);
        return S.SessionRecord.deserialize(bytes);
      });
    }
  }

  class MemIdentityStore extends S.IdentityKeyStore {
    constructor() {
      super();
      this.identities = new Map();
    }
    async getIdentityKey() {
      return identityKeyPair.privateKey;
    }
    async getLocalRegistrationId() {
      return registrationId;
    }
    async saveIdentity(address, key) {
      const k = addrKey(address);
      const old = this.identities.get(k);
      this.identities.set(k, Buffer.from(key.serialize()));
      const replaced = old !== undefined && !old.equals(Buffer.from(key.serialize()));
      return replaced ? S.IdentityChange.ReplacedExisting : S.IdentityChange.NewOrUnchanged;
    }
    // Trust on first use: the tests only care about the cryptography.
    async isTrustedIdentity(_address, _key, _direction) {
      return true;
    }
    async getIdentity(address) {
      const bytes = this.identities.get(addrKey(address));
      return bytes ? S.PublicKey.deserialize(bytes) : null;
    }
  }

  class MemPreKeyStore extends S.PreKeyStore {
    constructor() {
      super();
      this.keys = new Map();
    }
    async savePreKey(id, record) {
      this.keys.set(id, record);
    }
    async getPreKey(id) {
      const r = this.keys.get(id);
      if (!r) throw new Error(`no pre key ${id}`);
      return r;
    }
    async removePreKey(id) {
      this.keys.delete(id);
    }
  }

  class MemSignedPreKeyStore extends S.SignedPreKeyStore {
    constructor() {
      super();
      this.keys = new Map();
    }
    async saveSignedPreKey(id, record) {
      this.keys.set(id, record);
    }
    async getSignedPreKey(id) {
      const r = this.keys.get(id);
      if (!r) throw new Error(`no signed pre key ${id}`);
      return r;
    }
  }

  class MemKyberPreKeyStore extends S.KyberPreKeyStore {
    constructor() {
      super();
      this.keys = new Map();
      this.used = [];
    }
    async saveKyberPreKey(id, record) {
      this.keys.set(id, record);
    }
    async getKyberPreKey(id) {
      const r = this.keys.get(id);
      if (!r) throw new Error(`no kyber pre key ${id}`);
      return r;
    }
    // 0.72: (id); 0.90: (id, signedPreKeyId, baseKey). Kept as a last-resort key either way.
    async markKyberPreKeyUsed(id) {
      this.used.push(id);
    }
  }

  class MemSenderKeyStore extends S.SenderKeyStore {
    constructor() {
      super();
      this.records = new Map();
    }
    async saveSenderKey(sender, distributionId, record) {
      this.records.set(`${addrKey(sender)}/${distributionId}`, Buffer.from(record.serialize()));
    }
    async getSenderKey(sender, distributionId) {
      const bytes = this.records.get(`${addrKey(sender)}/${distributionId}`);
      return bytes ? S.SenderKeyRecord.deserialize(bytes) : null;
    }
  }

  return {
    senderKey: new MemSenderKeyStore(),
    session: new MemSessionStore(),
    identity: new MemIdentityStore(),
    preKey: new MemPreKeyStore(),
    signedPreKey: new MemSignedPreKeyStore(),
    kyberPreKey: new MemKyberPreKeyStore(),
  };
}

// ---------------------------------------------------------------------------------------------
// state and commands

let party = null; // { stores, bundle }

// The remote party of a command: its "address" {name, device_id}, or ("alibi", 1).
function remoteAddress(req) {
  const a = req && req.address;
  if (a === undefined || a === null) return SignalClient.ProtocolAddress.new(REMOTE_NAME, REMOTE_DEVICE);
  if (typeof a.name !== 'string' || !Number.isInteger(a.device_id)) {
    throw new Error('address: expected {"name": string, "device_id": integer}');
  }
  return SignalClient.ProtocolAddress.new(a.name, a.device_id);
}

// This party's own address (its service id and device), as set by init.
function ownAddress() {
  const { name, deviceId } = requireParty();
  return SignalClient.ProtocolAddress.new(name, deviceId);
}

function requireParty() {
  if (!party) throw new Error('not initialised: send {"cmd":"init"} first');
  return party;
}

// Since the SPQR releases, the 1:1 session calls take this party's own address right after the
// remote one (0.103: processPreKeyBundle(bundle, address, localAddress, ...)); earlier releases do
// not. Told apart by the functions' declared parameter counts (defaulted `now` not counted).
function peerArgs(fn, plainArity, remote) {
  return fn.length > plainArity ? [remote, ownAddress()] : [remote];
}

function privateKeyOrGenerate(hex, what) {
  const S = SignalClient;
  const bytes = optHex(hex, what);
  if (bytes === null) return S.PrivateKey.generate();
  if (bytes.length !== 32) throw new Error(`${what}: expected 32 bytes, got ${bytes.length}`);
  return S.PrivateKey.deserialize(bytes);
}

function boolOr(value, dflt, what) {
  if (value === undefined || value === null) return dflt;
  if (typeof value !== 'boolean') throw new Error(`${what}: expected a boolean`);
  return value;
}

function cmdInit(req) {
  const S = SignalClient;
  const registrationId = req.registration_id;
  if (!Number.isInteger(registrationId) || registrationId < 0) {
    throw new Error('registration_id: expected a non-negative integer');
  }
  const kyber = boolOr(req.kyber, true, 'kyber');
  const oneTime = boolOr(req.one_time, true, 'one_time');

  const identityPrivate = privateKeyOrGenerate(req.identity_private, 'identity_private');
  const identity = new S.IdentityKeyPair(identityPrivate.getPublicKey(), identityPrivate);
  const stores = makeStores(identity, registrationId);
  const now = Date.now();

  const spkPrivate = privateKeyOrGenerate(req.signed_pre_key_private, 'signed_pre_key_private');
  const spkPublic = spkPrivate.getPublicKey();
  const spkSignature = identityPrivate.sign(Buffer.from(spkPublic.serialize()));
  stores.signedPreKey.keys.set(
    SIGNED_PRE_KEY_ID,
    S.SignedPreKeyRecord.new(SIGNED_PRE_KEY_ID, now, spkPublic, spkPrivate, Buffer.from(spkSignature))
  );

  let preKeyPublic = null;
  if (oneTime) {
    const pkPrivate = privateKeyOrGenerate(req.pre_key_private, 'pre_key_private');
    preKeyPublic = pkPrivate.getPublicKey();
    stores.preKey.keys.set(PRE_KEY_ID, S.PreKeyRecord.new(PRE_KEY_ID, preKeyPublic, pkPrivate));
  }

  let kyberPublic = null;
  let kyberSignature = null;
  if (kyber) {
    const kemPair = S.KEMKeyPair.generate();
    kyberPublic = kemPair.getPublicKey();
    kyberSignature = identityPrivate.sign(Buffer.from(kyberPublic.serialize()));
    stores.kyberPreKey.keys.set(
      KYBER_PRE_KEY_ID,
      S.KyberPreKeyRecord.new(KYBER_PRE_KEY_ID, now, kemPair, Buffer.from(kyberSignature))
    );
  }

  const name = typeof req.name === 'string' ? req.name : 'cccccccc-7000-11eb-b32a-33b8a8a48700';
  const deviceId = optId(req.device_id, 'device_id') ?? 1;
  party = { stores, name, deviceId, identity };
  return {
    registration_id: registrationId,
    device_id: 1,
    identity_key: toHex(identity.publicKey.serialize()),
    pre_key_id: oneTime ? PRE_KEY_ID : null,
    pre_key: preKeyPublic ? toHex(preKeyPublic.serialize()) : null,
    signed_pre_key_id: SIGNED_PRE_KEY_ID,
    signed_pre_key: toHex(spkPublic.serialize()),
    signed_pre_key_signature: toHex(spkSignature),
    kyber_pre_key_id: kyber ? KYBER_PRE_KEY_ID : null,
    kyber_pre_key: kyberPublic ? toHex(kyberPublic.serialize()) : null,
    kyber_pre_key_signature: kyberSignature ? toHex(kyberSignature) : null,
  };
}

function optId(value, what) {
  if (value === undefined || value === null) return null;
  if (!Number.isInteger(value) || value < 0) throw new Error(`${what}: expected an integer`);
  return value;
}

async function cmdProcessBundle(req) {
  const S = SignalClient;
  const { stores } = requireParty();
  const preKeyId = optId(req.pre_key_id, 'pre_key_id');
  const preKeyBytes = optHex(req.pre_key, 'pre_key');
  if ((preKeyId === null) !== (preKeyBytes === null)) {
    throw new Error('pre_key_id and pre_key must be given together');
  }
  const kyberId = optId(req.kyber_pre_key_id, 'kyber_pre_key_id');
  const kyberBytes = optHex(req.kyber_pre_key, 'kyber_pre_key');
  const kyberSig = optHex(req.kyber_pre_key_signature, 'kyber_pre_key_signature');
  const kyberGiven = [kyberId, kyberBytes, kyberSig].filter((x) => x !== null).length;
  if (kyberGiven !== 0 && kyberGiven !== 3) {
    throw new Error('kyber_pre_key_id, kyber_pre_key and kyber_pre_key_signature go together');
  }
  const signedPreKeyId = optId(req.signed_pre_key_id, 'signed_pre_key_id');
  if (signedPreKeyId === null) throw new Error('signed_pre_key_id is required');
  const registrationId = optId(req.registration_id, 'registration_id');
  if (registrationId === null) throw new Error('registration_id is required');
  const deviceId = optId(req.device_id, 'device_id') ?? 1;

  const args = [
    registrationId,
    deviceId,
    preKeyId,
    preKeyBytes ? S.PublicKey.deserialize(preKeyBytes) : null,
    signedPreKeyId,
    S.PublicKey.deserialize(fromHex(req.signed_pre_key, 'signed_pre_key')),
    fromHex(req.signed_pre_key_signature, 'signed_pre_key_signature'),
    S.PublicKey.deserialize(fromHex(req.identity_key, 'identity_key')),
    kyberId,
    kyberBytes ? S.KEMPublicKey.deserialize(kyberBytes) : null,
    kyberSig,
  ];
  let bundle;
  try {
    bundle = S.PreKeyBundle.new(...args);
  } catch (e) {
    if (kyberGiven === 0) {
      // 0.90's PreKeyBundle.new takes the Kyber triple as required parameters (PQXDH only).
      throw new Error(
        `libsignal ${packageVersion} rejected a bundle without a kyber pre key (X3DH): ${errorMessage(e)}`
      );
    }
    throw e;
  }
  await S.processPreKeyBundle(
    bundle,
    ...peerArgs(S.processPreKeyBundle, 4, remoteAddress(req)),
    stores.session,
    stores.identity
  );
  return { ok: true };
}

async function cmdEncrypt(req) {
  const S = SignalClient;
  const { stores } = requireParty();
  const plaintext = fromHex(req.plaintext, 'plaintext');
  const msg = await S.signalEncrypt(
    plaintext,
    ...peerArgs(S.signalEncrypt, 4, remoteAddress(req)),
    stores.session,
    stores.identity
  );
  return { type: msg.type(), body: toHex(msg.serialize()) };
}

async function cmdDecrypt(req) {
  const S = SignalClient;
  const { stores } = requireParty();
  const body = fromHex(req.body, 'body');
  let plaintext;
  if (req.type === S.CiphertextMessageType.PreKey) {
    plaintext = await S.signalDecryptPreKey(
      S.PreKeySignalMessage.deserialize(body),
      ...peerArgs(S.signalDecryptPreKey, 7, remoteAddress(req)),
      stores.session,
      stores.identity,
      stores.preKey,
      stores.signedPreKey,
      stores.kyberPreKey
    );
  } else if (req.type === S.CiphertextMessageType.Whisper) {
    plaintext = await S.signalDecrypt(
      S.SignalMessage.deserialize(body),
      ...peerArgs(S.signalDecrypt, 4, remoteAddress(req)),
      stores.session,
      stores.identity
    );
  } else {
    throw new Error(`type: expected 3 (PreKey) or 2 (Whisper), got ${JSON.stringify(req.type)}`);
  }
  return { plaintext: toHex(plaintext) };
}

// Times one libsignal operation `iterations` times (the state it changes is put back between
// runs, outside the timed region, as libsignal's own benchmarks clone their stores) and answers
// the median, the fastest run and the total in nanoseconds. Ops: "process_bundle" (bundle fields as for
// process_bundle), "encrypt" (plaintext), "decrypt" (type, body).
async function cmdTime(req) {
  const S = SignalClient;
  const { stores } = requireParty();
  const n = optId(req.iterations, 'iterations') ?? 100;
  const snapshot = () => [new Map(stores.session.sessions), new Map(stores.preKey.keys)];
  const restore = ([sessions, preKeys]) => {
    stores.session.sessions = new Map(sessions);
    stores.preKey.keys = new Map(preKeys);
  };
  let op;
  if (req.op === 'process_bundle') {
    const saved = snapshot();
    op = async () => {
      await cmdProcessBundle(req);
      restore(saved);
    };
  } else if (req.op === 'encrypt') {
    const plaintext = fromHex(req.plaintext, 'plaintext');
    op = () =>
      S.signalEncrypt(
        plaintext,
        ...peerArgs(S.signalEncrypt, 4, remoteAddress(req)),
        stores.session,
        stores.identity
      );
  } else if (req.op === 'decrypt') {
    const saved = snapshot();
    op = async () => {
      await cmdDecrypt(req);
      restore(saved);
    };
  } else {
    throw new Error(`unknown op ${JSON.stringify(req.op)}`);
  }
  const times = [];
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await op();
    times.push(Number(process.hrtime.bigint() - t0));
  }
  const total = Number(process.hrtime.bigint() - start);
  times.sort((a, b) => a - b);
  return { median_ns: times[Math.floor(n / 2)], min_ns: times[0], total_ns: total, iterations: n };
}

// ---------------------------------------------------------------------------------------------
// groups: sender keys, certificates, sealed sender v1 and v2

function requireString(value, what) {
  if (typeof value !== 'string') throw new Error(`${what}: expected a string`);
  return value;
}

async function cmdSenderKeyDistribution(req) {
  const S = SignalClient;
  const { stores } = requireParty();
  const dist = requireString(req.distribution_id, 'distribution_id');
  const skdm = await S.SenderKeyDistributionMessage.create(ownAddress(), dist, stores.senderKey);
  return { skdm: toHex(skdm.serialize()) };
}

async function cmdProcessSenderKeyDistribution(req) {
  const S = SignalClient;
  const { stores } = requireParty();
  const skdm = S.SenderKeyDistributionMessage.deserialize(fromHex(req.skdm, 'skdm'));
  await S.processSenderKeyDistributionMessage(remoteAddress(req), skdm, stores.senderKey);
  return { ok: true };
}

async function cmdGroupEncrypt(req) {
  const S = SignalClient;
  const { stores } = requireParty();
  const dist = requireString(req.distribution_id, 'distribution_id');
  const msg = await S.groupEncrypt(ownAddress(), dist, stores.senderKey, fromHex(req.plaintext, 'plaintext'));
  return { body: toHex(msg.serialize()) };
}

async function cmdGroupDecrypt(req) {
  const S = SignalClient;
  const { stores } = requireParty();
  const pt = await S.groupDecrypt(remoteAddress(req), stores.senderKey, fromHex(req.body, 'body'));
  return { plaintext: toHex(pt) };
}

function cmdMakeCertificates(req) {
  const S = SignalClient;
  const { identity } = requireParty();
  const root = S.PrivateKey.deserialize(fromHex(req.trust_root_private, 'trust_root_private'));
  const serverKey = S.PrivateKey.deserialize(fromHex(req.server_key_private, 'server_key_private'));
  const keyId = optId(req.server_key_id, 'server_key_id') ?? 1;
  const server = S.ServerCertificate.new(keyId, serverKey.getPublicKey(), root);
  const senderKey = req.sender_identity
    ? S.PublicKey.deserialize(fromHex(req.sender_identity, 'sender_identity'))
    : identity.publicKey;
  const sender = S.SenderCertificate.new(
    requireString(req.sender_uuid, 'sender_uuid'),
    null,
    optId(req.sender_device_id, 'sender_device_id') ?? 1,
    senderKey,
    optId(req.expiration, 'expiration'),
    server,
    serverKey
  );
  return { server_certificate: toHex(server.serialize()), sender_certificate: toHex(sender.serialize()) };
}

function cmdValidateCertificate(req) {
  const S = SignalClient;
  const cert = S.SenderCertificate.deserialize(fromHex(req.sender_certificate, 'sender_certificate'));
  const root = S.PublicKey.deserialize(fromHex(req.trust_root, 'trust_root'));
  return { valid: cert.validate(root, optId(req.time, 'time')) };
}

async function cmdSealedEncryptV1(req) {
  const S = SignalClient;
  const { stores } = requireParty();
  const cert = S.SenderCertificate.deserialize(fromHex(req.sender_certificate, 'sender_certificate'));
  const body = await S.sealedSenderEncryptMessage(
    fromHex(req.plaintext, 'plaintext'),
    remoteAddress(req),
    cert,
    stores.session,
    stores.identity
  );
  return { body: toHex(body) };
}

async function cmdSealedDecryptV1(req) {
  const S = SignalClient;
  const { stores, name, deviceId } = requireParty();
  const r = await S.sealedSenderDecryptMessage(
    fromHex(req.body, 'body'),
    S.PublicKey.deserialize(fromHex(req.trust_root, 'trust_root')),
    optId(req.timestamp, 'timestamp'),
    null,
    name,
    deviceId,
    stores.session,
    stores.identity,
    stores.preKey,
    stores.signedPreKey,
    stores.kyberPreKey
  );
  return { plaintext: toHex(r.message()), sender_uuid: r.senderUuid(), device_id: r.deviceId() };
}

async function cmdSealedEncryptV2(req) {
  const S = SignalClient;
  const { stores } = requireParty();
  if (!Array.isArray(req.addresses)) throw new Error('addresses: expected a list');
  const recipients = req.addresses.map((a) => remoteAddress({ address: a }));
  const cert = S.SenderCertificate.deserialize(fromHex(req.sender_certificate, 'sender_certificate'));
  const dist = requireString(req.distribution_id, 'distribution_id');
  const skm = await S.groupEncrypt(ownAddress(), dist, stores.senderKey, fromHex(req.plaintext, 'plaintext'));
  const usmc = S.UnidentifiedSenderMessageContent.new(skm, cert, S.ContentHint.Default, null);
  const body = await S.sealedSenderMultiRecipientEncrypt(usmc, recipients, stores.identity, stores.session);
  return { body: toHex(body) };
}

async function cmdSealedDecryptV2(req) {
  const S = SignalClient;
  const { stores } = requireParty();
  const usmc = await S.sealedSenderDecryptToUsmc(fromHex(req.body, 'body'), stores.identity);
  const cert = usmc.senderCertificate();
  const root = S.PublicKey.deserialize(fromHex(req.trust_root, 'trust_root'));
  if (!cert.validate(root, optId(req.timestamp, 'timestamp'))) throw new Error('invalid certificate');
  const sender = S.ProtocolAddress.new(cert.senderUuid(), cert.senderDeviceId());
  const type = usmc.msgType();
  let pt;
  if (type === S.CiphertextMessageType.SenderKey) {
    pt = await S.groupDecrypt(sender, stores.senderKey, usmc.contents());
  } else if (type === S.CiphertextMessageType.Whisper) {
    pt = await S.signalDecrypt(
      S.SignalMessage.deserialize(usmc.contents()),
      ...peerArgs(S.signalDecrypt, 4, sender),
      stores.session,
      stores.identity
    );
  } else if (type === S.CiphertextMessageType.PreKey) {
    pt = await S.signalDecryptPreKey(
      S.PreKeySignalMessage.deserialize(usmc.contents()),
      ...peerArgs(S.signalDecryptPreKey, 7, sender),
      stores.session,
      stores.identity,
      stores.preKey,
      stores.signedPreKey,
      stores.kyberPreKey
    );
  } else {
    throw new Error(`unexpected USMC type ${type}`);
  }
  return { plaintext: toHex(pt), sender_uuid: cert.senderUuid(), device_id: cert.senderDeviceId(), type };
}

// The server's split of a multi-recipient message, done by libsignal's own parser.
function cmdSentToReceived(req) {
  let M;
  try {
    M = require(`${PKG}/dist/SealedSenderMultiRecipientMessage.js`);
  } catch (e) {
    throw new Error(`not available in ${packageVersion}: ${errorMessage(e)}`);
  }
  const Cls = M.default || M;
  const msg = new Cls(fromHex(req.body, 'body'));
  const r = msg.recipientsByServiceIdString()[requireString(req.recipient, 'recipient')];
  if (!r) throw new Error('no such recipient');
  return { body: toHex(msg.messageForRecipient(r)) };
}

async function handle(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    throw new Error(`bad JSON: ${e.message}`);
  }
  if (req === null || typeof req !== 'object') throw new Error('expected a JSON object');
  switch (req.cmd) {
    case 'version':
      return { version: packageVersion };
    case 'init':
      return cmdInit(req);
    case 'process_bundle':
      return cmdProcessBundle(req);
    case 'encrypt':
      return cmdEncrypt(req);
    case 'decrypt':
      return cmdDecrypt(req);
    case 'time':
      return cmdTime(req);
    case 'sender_key_distribution':
      return cmdSenderKeyDistribution(req);
    case 'process_sender_key_distribution':
      return cmdProcessSenderKeyDistribution(req);
    case 'group_encrypt':
      return cmdGroupEncrypt(req);
    case 'group_decrypt':
      return cmdGroupDecrypt(req);
    case 'make_certificates':
      return cmdMakeCertificates(req);
    case 'validate_certificate':
      return cmdValidateCertificate(req);
    case 'sealed_encrypt_v1':
      return cmdSealedEncryptV1(req);
    case 'sealed_decrypt_v1':
      return cmdSealedDecryptV1(req);
    case 'sealed_encrypt_v2':
      return cmdSealedEncryptV2(req);
    case 'sealed_decrypt_v2':
      return cmdSealedDecryptV2(req);
    case 'sent_to_received':
      return cmdSentToReceived(req);
    default:
      throw new Error(`unknown cmd ${JSON.stringify(req.cmd)}`);
  }
}

function errorMessage(e) {
  if (e instanceof Error) {
    return e.code !== undefined ? `${e.name} (${e.code}): ${e.message}` : `${e.name}: ${e.message}`;
  }
  return String(e);
}

function respond(obj) {
  // Pipes are written synchronously on POSIX, so one line is out before the next command.
  process.stdout.write(JSON.stringify(obj) + '\n');
}

async function main() {
  process.on('unhandledRejection', (e) => console.error('signal-peer: unhandled rejection:', e));
  process.on('uncaughtException', (e) => console.error('signal-peer: uncaught exception:', e));

  let loadError = null;
  try {
    await loadLibrary();
  } catch (e) {
    loadError = `cannot load ${PKG}: ${errorMessage(e)}`;
    console.error(`signal-peer: ${loadError}`);
  }

  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  // Commands run strictly one after another, in arrival order.
  let chain = Promise.resolve();
  rl.on('line', (line) => {
    if (line.trim() === '') return;
    chain = chain.then(async () => {
      if (loadError) return respond({ error: loadError });
      try {
        respond(await handle(line));
      } catch (e) {
        respond({ error: errorMessage(e) });
      }
    });
  });
  rl.on('close', () => {
    chain.then(() => process.exit(0));
  });
}

main();
