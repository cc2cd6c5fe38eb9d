/* Records test vectors from the SHADOWFAX artifact's BAT-257 and GandalfMitaka instances, as JSON
 * lines on five files. Scratch code, outside the alibi repository. */
#include "kem_api.h"
#include "rsig_api.h"
#include "pq_akem_api.h"
#include "randombytes.h"
#include <stdio.h>
#include <string.h>
#include <stdint.h>

/* h_akem's declarations, included by name to avoid its MLEN clashing with pq_akem's. */
#include "nike_api.h"
typedef struct { nike_sk nsk; kem_sk ksk; sign_sk ssk; } h_akem_sk;
typedef struct { nike_pk npk; kem_pk kpk; sign_pk spk; } h_akem_pk;
typedef struct { nike_pk npk; kem_ct ct; uint8_t enc_rsig[RSIG_SIGNATURE_BYTES]; } h_akem_ct;
void h_akem_keygen(h_akem_sk *sk, h_akem_pk *pk);
void h_akem_encap(uint8_t *k, h_akem_ct *ct, const h_akem_sk *ssk, const h_akem_pk *spk, const h_akem_pk *rpk);
int h_akem_decap(uint8_t *k, const h_akem_ct *ct, const h_akem_sk *rsk, const h_akem_pk *rpk, const h_akem_pk *spk);

void init_prng(void);

static void hex(FILE *f, const char *name, const void *p, size_t n, int last) {
    const uint8_t *b = p;
    fprintf(f, "\"%s\":\"", name);
    for (size_t i = 0; i < n; i++) fprintf(f, "%02x", b[i]);
    fprintf(f, "\"%s", last ? "" : ",");
}

/* A pseudo-random position below n, from the artifact's PRNG. */
static size_t pos(size_t n) {
    uint8_t r[4];
    randombytes(r, 4);
    return ((size_t)r[0] | (size_t)r[1] << 8 | (size_t)r[2] << 16 | (size_t)r[3] << 24) % n;
}


/* The derandomized BAT-257 lines (bat257_seeded.jsonl). The artifact has no seeded key generation:
 * kem_keygen and kem_encap take their randomness from get_seed(), the operating system. So the
 * artifact's BAT/kem_api.c is compiled a second time, into this file, with get_seed() replaced by
 * fixed_seed() (which hands out the bytes in fixed_bytes) and its exported names renamed so that
 * they do not clash with the copy linked as usual. The code is the artifact's, unchanged. */
static uint8_t fixed_bytes[32];
int fixed_seed(void *dst, size_t len) {
    if (len > sizeof fixed_bytes) return 0;
    memcpy(dst, fixed_bytes, len);
    return 1;
}
#define get_seed fixed_seed
#define kem_keygen seeded_kem_keygen
#define kem_encap seeded_kem_encap
#define kem_encap_seed seeded_kem_encap_seed
#define kem_decap seeded_kem_decap
#define kem_encode_ct seeded_kem_encode_ct
#define kem_decode_ct seeded_kem_decode_ct
#include "kem_api.c"
#undef get_seed
#undef kem_keygen
#undef kem_encap
#undef kem_encap_seed
#undef kem_decap
#undef kem_encode_ct
#undef kem_decode_ct
/* The artifact's exported seeded encapsulation (kem_api.c), which kem_api.h does not declare. */
int kem_encap_seed(void *secret, size_t secret_len, kem_ct *ct, const kem_pk *pk, const void *m);

/* kem_decap hashes N = 512 bytes from the start of the 473-byte kem_ct (make_kdf_seed_bad), so it
 * reads 39 bytes past the struct. They are kept zero here, which makes the rejection keys defined. */
typedef struct { kem_ct ct; uint8_t zero[64]; } padded_ct;

static void seeded_lines(void) {
    FILE *f = fopen("bat257_seeded.jsonl", "w");
    for (int i = 0; i < 20; i++) {
        kem_sk sk; kem_pk pk; padded_ct ct, ct2, rej; uint8_t m[16];
        uint8_t ek32[32], ek48[48], ek64[64], dk32[32], dk48[48], dk64[64];
        uint8_t rk32[32], rk48[48], rk64[64];
        for (int j = 0; j < 32; j++) fixed_bytes[j] = (uint8_t)(37 * i + j);
        uint8_t rng_seed[32];
        memcpy(rng_seed, fixed_bytes, 32);
        seeded_kem_keygen(&sk, &pk);
        for (int j = 0; j < 16; j++) m[j] = (uint8_t)(101 * i + 3 * j + 0x5a);
        memset(&ct, 0, sizeof ct); memset(&ct2, 0, sizeof ct2);
        kem_encap_seed(ek32, 32, &ct.ct, &pk, m);
        kem_encap_seed(ek48, 48, &ct2.ct, &pk, m);
        if (memcmp(&ct, &ct2, sizeof ct) != 0) { fprintf(stderr, "ct differs\n"); return; }
        kem_encap_seed(ek64, 64, &ct2.ct, &pk, m);
        if (memcmp(&ct, &ct2, sizeof ct) != 0) { fprintf(stderr, "ct differs\n"); return; }
        /* The same through the renamed kem_encap, whose get_seed() now returns m. */
        uint8_t ek32b[32];
        memcpy(fixed_bytes, m, 16);
        memset(&ct2, 0, sizeof ct2);
        seeded_kem_encap(ek32b, 32, &ct2.ct, &pk);
        if (memcmp(&ct, &ct2, sizeof ct) != 0 || memcmp(ek32, ek32b, 32) != 0) {
            fprintf(stderr, "kem_encap differs from kem_encap_seed\n"); return;
        }
        kem_decap(dk32, 32, &ct.ct, &sk);
        kem_decap(dk48, 48, &ct.ct, &sk);
        kem_decap(dk64, 64, &ct.ct, &sk);
        /* One bit of c2 (the last 16 bytes) flipped: it still decodes, and is rejected. */
        size_t flip = KEM_CIPHERTXT_BYTES - C2_BYTES + (size_t)(i % C2_BYTES);
        rej = ct;
        rej.ct.ct[flip] ^= (uint8_t)(1u << (i % 8));
        kem_decap(rk32, 32, &rej.ct, &sk);
        kem_decap(rk48, 48, &rej.ct, &sk);
        kem_decap(rk64, 64, &rej.ct, &sk);
        fprintf(f, "{");
        hex(f, "rng_seed", rng_seed, 32, 0); hex(f, "sk", &sk, sizeof sk, 0);
        hex(f, "pk", &pk, sizeof pk, 0); hex(f, "m", m, 16, 0); hex(f, "ct", &ct.ct, sizeof ct.ct, 0);
        hex(f, "encap_key32", ek32, 32, 0); hex(f, "encap_key48", ek48, 48, 0);
        hex(f, "encap_key64", ek64, 64, 0);
        hex(f, "decap_key32", dk32, 32, 0); hex(f, "decap_key48", dk48, 48, 0);
        hex(f, "decap_key64", dk64, 64, 0);
        hex(f, "rej_ct", &rej.ct, sizeof rej.ct, 0);
        hex(f, "rej_key32", rk32, 32, 0); hex(f, "rej_key48", rk48, 48, 0);
        hex(f, "rej_key64", rk64, 64, 0);
        fprintf(f, "\"flipped_byte\":%zu}\n", flip);
    }
    fclose(f);
}

int main(void) {
    init_prng();

    /* BAT-257: 20 honest lines, then 5 with one ciphertext bit flipped. */
    FILE *f = fopen("bat257.jsonl", "w");
    for (int i = 0; i < 25; i++) {
        kem_sk sk; kem_pk pk; kem_ct ct; uint8_t k1[32], k2[32];
        kem_keygen(&sk, &pk);
        kem_encap(k1, 32, &ct, &pk);
        size_t flip = (size_t)-1;
        if (i >= 20) { flip = pos(sizeof ct); ct.ct[flip] ^= 1; }
        int r = kem_decap(k2, 32, &ct, &sk);
        fprintf(f, "{");
        hex(f, "sk", &sk, sizeof sk, 0); hex(f, "pk", &pk, sizeof pk, 0); hex(f, "ct", &ct, sizeof ct, 0);
        hex(f, "encap_key", k1, 32, 0); hex(f, "decap_key", k2, 32, 0);
        fprintf(f, "\"decap_return\":%d,\"flipped_byte\":%lld,\"keys_equal\":%s}\n", r,
                flip == (size_t)-1 ? -1LL : (long long)flip, memcmp(k1, k2, 32) == 0 ? "true" : "false");
    }
    fclose(f);

    /* GANDALF[Antrag, Mitaka], two members. */
    f = fopen("gandalf_mitaka.jsonl", "w");
    for (int i = 0; i < 25; i++) {
        sign_sk sk[2]; rsig_pk pks; rsig_signature s; uint8_t msg[200];
        sign_keygen(&sk[0], &pks.hs[0]);
        sign_keygen(&sk[1], &pks.hs[1]);
        size_t mlen = i == 0 ? 0 : (i == 1 ? 200 : 1 + pos(200));
        randombytes(msg, mlen);
        size_t signer = i % 2;
        Gandalf_sign(&s, msg, mlen, &pks, &sk[signer], signer);
        if (i >= 20) {
            if (i % 2 == 1 && mlen > 0) msg[pos(mlen)] ^= 1;
            else ((uint8_t *)&s)[pos(sizeof s)] ^= 1;
        }
        int v = Gandalf_verify(msg, mlen, &s, &pks);
        fprintf(f, "{");
        hex(f, "sk0", &sk[0], sizeof sk[0], 0); hex(f, "sk1", &sk[1], sizeof sk[1], 0);
        hex(f, "h0", &pks.hs[0], sizeof pks.hs[0], 0); hex(f, "h1", &pks.hs[1], sizeof pks.hs[1], 0);
        hex(f, "msg", msg, mlen, 0); hex(f, "sig", &s, sizeof s, 0);
        fprintf(f, "\"signer\":%zu,\"valid\":%s}\n", signer, v ? "true" : "false");
    }
    fclose(f);

    /* PQ-AKEM[BAT, GANDALF[Antrag, Mitaka]] and SHADOWFAX[X25519, BAT, GANDALF[Antrag, Mitaka]]:
     * 10 honest lines each, then 5 with one ciphertext bit flipped. */
#define AKEM_LINES(NAME, P)                                                                      \
    f = fopen(NAME, "w");                                                                        \
    for (int i = 0; i < 15; i++) {                                                               \
        P##_sk ssk, rsk; P##_pk spk, rpk; P##_ct ct; uint8_t k1[32], k2[32];                     \
        P##_keygen(&ssk, &spk);                                                                  \
        P##_keygen(&rsk, &rpk);                                                                  \
        P##_encap(k1, &ct, &ssk, &spk, &rpk);                                                    \
        if (i >= 10) ((uint8_t *)&ct)[pos(sizeof ct)] ^= 1;                                      \
        memset(k2, 0, 32);                                                                       \
        int r = P##_decap(k2, &ct, &rsk, &rpk, &spk);                                            \
        fprintf(f, "{");                                                                         \
        hex(f, "sender_sk", &ssk, sizeof ssk, 0); hex(f, "sender_pk", &spk, sizeof spk, 0);      \
        hex(f, "receiver_sk", &rsk, sizeof rsk, 0); hex(f, "receiver_pk", &rpk, sizeof rpk, 0);  \
        hex(f, "ct", &ct, sizeof ct, 0); hex(f, "encap_key", k1, 32, 0);                         \
        hex(f, "decap_key", k2, 32, 0);                                                          \
        fprintf(f, "\"decap_return\":%d}\n", r);                                                \
    }                                                                                            \
    fclose(f);
    AKEM_LINES("pq_akem_bat.jsonl", pq_akem)
    AKEM_LINES("shadowfax_bat.jsonl", h_akem)
    /* Derandomized BAT-257 (after everything else: it does not use the artifact's PRNG). */
    seeded_lines();
    printf("sizes: kem sk %zu pk %zu ct %zu; sign sk %zu pk %zu sig %zu; pq sk %zu pk %zu ct %zu; h sk %zu pk %zu ct %zu\n",
           sizeof(kem_sk), sizeof(kem_pk), sizeof(kem_ct), sizeof(sign_sk), sizeof(sign_pk), sizeof(rsig_signature),
           sizeof(pq_akem_sk), sizeof(pq_akem_pk), sizeof(pq_akem_ct), sizeof(h_akem_sk), sizeof(h_akem_pk), sizeof(h_akem_ct));
    return 0;
}
