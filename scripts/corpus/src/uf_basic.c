/* uftrace corpus: small call tree with arguments of several types (scripts/corpus/uftrace.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fib(int n)
{
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

double average(const double *v, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += v[i];
  return n ? s / n : 0.0;
}

int count_char(const char *s, int c)
{
  int k = 0;
  for (; *s; s++)
    k += (*s == c);
  return k;
}

double scale(double x, float f)
{
  return x * f;
}

long leaf(long x)
{
  return x * 3 + 1;
}

long middle(long x)
{
  return leaf(x) + leaf(x + 1);
}

long top(long x)
{
  return middle(x) + middle(x * 2);
}

int main(int argc, char **argv)
{
  double v[3] = {1.5, 2.25, 4.0};
  char *buf = malloc(32);
  strcpy(buf, argc > 1 ? argv[1] : "corpus");
  printf("%d %.3f %d %ld\n", fib(5), scale(average(v, 3), 0.5f), count_char(buf, 'o'), top(2));
  free(buf);
  return 0;
}
