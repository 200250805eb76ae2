// Force-included (-include) into every file of paddock-init's musl build (init/CMakeLists.txt),
// nowhere else. That build compiles C++ against musl's C headers with the system's libstdc++
// headers, which were configured for glibc: they name a few glibc-only macros and declarations.
// Supplying them here only makes those headers parse. Nothing paddock-init calls reaches them:
// it links no compiled part of libstdc++ (init_runtime_support.cc), and a call that did would
// fail at link time, against musl's libc.a, not at run time.
#pragma once

// <bits/os_defines.h> asks which glibc this is; none.
#define __GLIBC_PREREQ(major, minor) 0

#include <pthread.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

// <bits/c++locale.h>: glibc's name for locale_t.
typedef struct __locale_struct* __locale_t;

// <bits/std_mutex.h>, <mutex>, <shared_mutex>: glibc 2.30's timed waits, declared for the
// headers' inline members, which paddock-init never instantiates.
int pthread_cond_clockwait(pthread_cond_t*, pthread_mutex_t*, clockid_t, const struct timespec*);
int pthread_mutex_clocklock(pthread_mutex_t*, clockid_t, const struct timespec*);
int pthread_rwlock_clockrdlock(pthread_rwlock_t*, clockid_t, const struct timespec*);
int pthread_rwlock_clockwrlock(pthread_rwlock_t*, clockid_t, const struct timespec*);

#ifdef __cplusplus
}
#endif

// <bits/ctype_base.h> builds std::ctype_base's masks from glibc's character class bits (its
// <ctype.h> values on a little-endian machine). paddock-init uses no locale.
#define _ISbit(bit) ((bit) < 8 ? ((1 << (bit)) << 8) : ((1 << (bit)) >> 8))
#define _ISupper _ISbit(0)
#define _ISlower _ISbit(1)
#define _ISalpha _ISbit(2)
#define _ISdigit _ISbit(3)
#define _ISxdigit _ISbit(4)
#define _ISspace _ISbit(5)
#define _ISprint _ISbit(6)
#define _ISgraph _ISbit(7)
#define _ISblank _ISbit(8)
#define _IScntrl _ISbit(9)
#define _ISpunct _ISbit(10)
#define _ISalnum _ISbit(11)
