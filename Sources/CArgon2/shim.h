#include <argon2.h>
