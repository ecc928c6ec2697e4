// C++ program for the uftrace corpus: structs by value (empty and not), strings, floats,
// std::string, containers, new/delete and a std::thread.
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

struct Empty {};
struct Pt {
  int x;
  double y;
};

static int use_empty(Empty e, int k) {
  (void)e;
  return k + 1;
}

static double use_pt(Pt p, const char *s, float f) {
  return p.x + p.y + f + (s ? 1 : 0);
}

static size_t use_str(const std::string &s) { return s.size(); }

static long worker(long n) {
  std::vector<long> v;
  for (long i = 0; i < n; i++) v.push_back(i * i);
  long sum = 0;
  for (long x : v) sum += x;
  return sum;
}

int main() {
  std::string s("hello corpus");
  auto p = std::make_unique<int>(5);
  int *a = new int[4];
  delete[] a;
  Empty e;
  Pt pt{1, 2.5};
  long r = 0;
  std::thread t([&r] { r = worker(4); });
  t.join();
  std::printf("%d %f %zu %d %ld\n", use_empty(e, 3), use_pt(pt, "x", 1.5f), use_str(s), *p, r);
  return 0;
}
