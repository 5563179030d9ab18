/* A producer thread hands 1000 numbers to the main thread. */
#include <conq/conq.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static void *producer(void *arg)
{
	conq_spsc_array *q = (conq_spsc_array *)arg;
	for (uintptr_t i = 1; i <= 1000; i++)
		while (!conq_spsc_array_offer(q, (void *)i))
			; /* full: spin (or back off) */
	return NULL;
}

int main(void)
{
	conq_spsc_array *q = conq_spsc_array_create(1024);
	if (q == NULL) {
		perror("conq_spsc_array_create");
		return 1;
	}
	pthread_t t;
	pthread_create(&t, NULL, producer, q);
	uintptr_t sum = 0;
	for (int got = 0; got < 1000;) {
		void *e = conq_spsc_array_poll(q);
		if (e != NULL) {
			sum += (uintptr_t)e;
			got++;
		}
	}
	pthread_join(t, NULL);
	conq_spsc_array_destroy(q);
	printf("sum %lu (expected 500500), conq %s\n", (unsigned long)sum,
	       conq_version());
	return sum == 500500 ? 0 : 1;
}
