/*
 * clocklib.c - the library half of the frozen clock's test program
 * (clock.c): a library's clock_gettime calls keep the real clock.
 */
#include <time.h>

long long lib_sleep_ns(void)
{
	struct timespec a, b, d = {0, 20000000};
	clock_gettime(CLOCK_MONOTONIC, &a);
	nanosleep(&d, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (long long)(b.tv_sec - a.tv_sec) * 1000000000 + (b.tv_nsec - a.tv_nsec);
}
