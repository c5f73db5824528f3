#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pkcs12.h>

/* Macros and variadic helpers that do not import into Swift. */
static inline void COpenSSL_free(void *p) { OPENSSL_free(p); }
static inline long COpenSSL_SSL_CTX_set_mode(SSL_CTX *c, long mode) { return SSL_CTX_set_mode(c, mode); }
static inline long COpenSSL_SSL_CTX_set_min_proto_version(SSL_CTX *c, int v) { return SSL_CTX_set_min_proto_version(c, v); }
static inline long COpenSSL_BIO_get_mem_data(BIO *b, char **p) { return BIO_get_mem_data(b, p); }
static inline long COpenSSL_SSL_set_tlsext_host_name(SSL *s, const char *name) { return SSL_set_tlsext_host_name(s, name); }
static inline long COpenSSL_SSL_CTX_add_extra_chain_cert(SSL_CTX *c, X509 *x) { return SSL_CTX_add_extra_chain_cert(c, x); }
static inline long COpenSSL_SSL_CTX_set_read_ahead(SSL_CTX *c, int yes) { return SSL_CTX_set_read_ahead(c, yes); }

#include <openssl/core_names.h>
#include <openssl/param_build.h>

/* An RSA public key from its modulus and exponent (big-endian bytes, as a JWK's n and e), or NULL. */
static inline EVP_PKEY *COpenSSL_rsa_public_key(const unsigned char *n, size_t nLength, const unsigned char *e, size_t eLength) {
    EVP_PKEY *key = NULL;
    BIGNUM *modulus = BN_bin2bn(n, (int)nLength, NULL), *exponent = BN_bin2bn(e, (int)eLength, NULL);
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    if (modulus && exponent && builder && context
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus) == 1
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent) == 1
        && (params = OSSL_PARAM_BLD_to_param(builder)) != NULL
        && EVP_PKEY_fromdata_init(context) == 1) {
        if (EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) key = NULL;
    }
    EVP_PKEY_CTX_free(context);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    BN_free(modulus);
    BN_free(exponent);
    return key;
}
