/* A plain C program of the kind the shim is for: linked to the system BLAS (libblas.so.3), it calls
 * the Fortran sgemm_ on N x N matrices and knows nothing of GPUs. The LD_PRELOAD test runs it small;
 * the BLAS benchmark (docs/blas.md) runs it at 8192 with and without the shim in front.
 * Usage: sgemm_program N [repeats] [beta]. Prints the best time, GFLOP/s and the largest error of
 * 64 sampled elements against double sums; exits 1 when one is off. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
            const int*, const float*, const int*, const float*, float*, const int*, size_t, size_t);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static float uniform(unsigned long long* s) { /* [-1, 1) */
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (float)((*s >> 40) * (2.0 / 16777216.0) - 1.0);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 256;
  const int reps = argc > 2 ? atoi(argv[2]) : 1;
  const float alpha = 1.0f, beta = argc > 3 ? (float)atof(argv[3]) : 0.0f;
  if (n <= 0 || reps <= 0) return 2;
  const size_t nn = (size_t)n * n;
  float *a = malloc(nn * sizeof(float)), *b = malloc(nn * sizeof(float)), *c = malloc(nn * sizeof(float));
  float* c0 = malloc(nn * sizeof(float));
  if (!a || !b || !c || !c0) return 2;
  unsigned long long s = 42;
  for (size_t i = 0; i < nn; ++i) a[i] = uniform(&s), b[i] = uniform(&s), c0[i] = uniform(&s);
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    for (size_t i = 0; i < nn; ++i) c[i] = c0[i];
    const double t0 = now();
    sgemm_("N", "N", &n, &n, &n, &alpha, a, &n, b, &n, &beta, c, &n, 1, 1);
    const double t = now() - t0;
    if (t < best) best = t;
  }
  double worst = 0;
  for (int t = 0; t < 64; ++t) {
    const int i = (int)((t * 7919ULL) % n), j = (int)((t * 104729ULL + 13) % n);
    double e = beta == 0.0f ? 0.0 : (double)beta * c0[i + (size_t)j * n];
    for (int l = 0; l < n; ++l) e += (double)alpha * a[i + (size_t)l * n] * b[l + (size_t)j * n];
    const double err = fabs(e - c[i + (size_t)j * n]);
    if (err > worst) worst = err;
  }
  const double tol = 4 * 1.2e-7 * (n + 2) + 1e-6;
  printf("sgemm_program n=%d best_ms=%.3f gflops=%.1f max_err=%.2e %s\n", n, best * 1e3,
         2.0 * n * nn / best * 1e-9, worst, worst <= tol ? "ok" : "MISMATCH");
  return worst <= tol ? 0 : 1;
}
