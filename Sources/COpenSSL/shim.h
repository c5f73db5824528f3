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
