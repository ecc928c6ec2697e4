/* setjmp/longjmp program for the uftrace corpus: longjmp unwinds two frames at once. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;

static void deep(int n)
{
	if (n == 0)
		longjmp(env, 42);
	deep(n - 1);
}

static int try_it(int n)
{
	int v = setjmp(env);

	if (v == 0) {
		deep(n);
		return -1;
	}
	return v;
}

int main(void)
{
	printf("%d %d\n", try_it(2), try_it(0));
	return 0;
}
