/* Target program for the GDB tracepoint corpus (scripts/corpus/gdb.sh).
   The script stops the trace run at the line marked with the END-LINE comment. */
#include <stdio.h>
#include <string.h>

int counter;
int ticks;
long table[4] = {10, 20, 30, 40};
char label[32] = "tracelint corpus";
struct point { int x; long y; char tag[8]; } origin = {3, -7, "origin"};

int tl_step(int i, const char *s)
{
  int len = (int) strlen(s);
  counter += i;
  return counter + len;
}

long tl_scale(long v, int factor)
{
  long r = v * factor;
  table[factor & 3] += r;
  return r;
}

/* No arguments: its first instruction after the prologue is 6 bytes long, long enough
   for a fast tracepoint jump (5 bytes). */
void tl_tick(void)
{
  ticks += 2;
}

int tl_finish(int acc)
{
  return acc & 0xff;
}

int main(void)
{
  int i, acc = 0;
  for (i = 0; i < 12; i++)
    {
      acc += tl_step(i, label);
      tl_tick();
    }
  for (i = 0; i < 4; i++)
    acc += (int) tl_scale(table[i], i + 1);
  acc = tl_finish(acc);
  printf("%d\n", acc); /* END-LINE */
  return 0;
}
