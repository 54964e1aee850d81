// OpenSSL's libcrypto (Debian: libssl-dev), for SHA-256 content identities.
#include <openssl/evp.h>
