#include <stddef.h>
#include <sys/types.h>
#include <wslay/wslay.h>
