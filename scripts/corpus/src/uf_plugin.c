/* A small shared library loaded with dlopen by uf_dlopen. */
int plugin_leaf(int x) { return x * 3 + 1; }
int plugin_work(int n) { int s = 0; for (int i = 0; i < n; i++) s += plugin_leaf(i); return s; }
