/*
 * clock.c - the frozen clock's test program (simserve TestPreloadFrozenClock):
 * prints, one a line, what its own clock_gettime(CLOCK_MONOTONIC),
 * clock_gettime(CLOCK_REALTIME), gettimeofday and time calls read, then
 * lib=N with N the nanoseconds between two CLOCK_MONOTONIC readings made
 * by a shared library (clocklib.c) around a 20 ms sleep.
 */
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

long long lib_sleep_ns(void);

int main(void)
{
	struct timespec ts;
	struct timeval tv;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("mono=%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("mono=%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	clock_gettime(CLOCK_REALTIME, &ts);
	printf("real=%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	gettimeofday(&tv, NULL);
	printf("tod=%lld.%06ld\n", (long long)tv.tv_sec, (long)tv.tv_usec);
	printf("time=%lld\n", (long long)time(NULL));
	printf("lib=%lld\n", lib_sleep_ns());
	return 0;
}
