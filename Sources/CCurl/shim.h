#include <curl/curl.h>

/* curl_easy_setopt is variadic: one fixed-signature wrapper per argument type Soar passes. */
static inline CURLcode CCurl_set_string(CURL *curl, CURLoption option, const char *value) { return curl_easy_setopt(curl, option, value); }
static inline CURLcode CCurl_set_long(CURL *curl, CURLoption option, long value) { return curl_easy_setopt(curl, option, value); }
static inline CURLcode CCurl_set_pointer(CURL *curl, CURLoption option, void *value) { return curl_easy_setopt(curl, option, value); }
static inline CURLcode CCurl_set_read(CURL *curl, size_t (*read)(char *, size_t, size_t, void *)) { return curl_easy_setopt(curl, CURLOPT_READFUNCTION, read); }
/* curl_easy_getinfo is variadic too: the one long-valued query Soar reads (the server's last reply code). */
static inline long CCurl_response_code(CURL *curl) { long code = 0; curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code); return code; }
