// The driver of the prelude tests: `driver` in prelude_host.rs fills in the prelude and the
// cases of the shifts by powers of r.
#include <cstdio>
#include <vector>
@PRELUDE@
#if defined(__CUDACC__)
#define DRV __device__
#else
#define DRV
#endif

struct Outs {
    fe_word_t *add, *sub, *mul, *neg, *mont, *mul_sub, *mul_sub2, *to_mont, *rpow, *eq, *eq_self, *consts;
};
static const char* const TAGS[] = {"add", "sub", "mul", "neg", "mont", "mul_sub", "mul_sub2", "to_mont", "rpow", "eq", "eq_self", "consts"};

// Every operation on element i of n; 0, or a code naming what failed.
DRV int compute(size_t i, size_t n, const fe_word_t* a, const fe_word_t* b, const fe_word_t* bm,
                const int* sh, Outs o) {
    const fe_t x = fe_load(a, i, n);
    const fe_t y = fe_load(b, i, n);
    const fe_t ym = fe_load(bm, i, n);
    (void)sh;
    fe_store(o.add, i, n, fe_add(x, y));
    fe_store(o.sub, i, n, fe_sub(x, y));
    fe_store(o.mul, i, n, fe_mul(x, y));
    fe_store(o.neg, i, n, fe_neg(x));
    fe_store(o.mont, i, n, fe_mul_mont(x, ym));
    fe_store(o.mul_sub, i, n, fe_mul_sub_mont(x, ym, y, fe_to_mont(y)));
    fe_store(o.mul_sub2, i, n, fe_mul_sub2_mont(x, ym, y, fe_to_mont(y), x, fe_to_mont(x)));
    fe_store(o.to_mont, i, n, fe_to_mont(x));
    o.eq[i] = fe_eq(x, y) ? 1 : 0;
    o.eq_self[i] = fe_eq(x, x) ? 1 : 0;
    if (i == 0) {
        fe_store(o.consts, 0, 2, fe_zero());
        fe_store(o.consts, 1, 2, fe_one());
    }
@RPOW@    return 0;
}

static bool read_words(std::vector<fe_word_t>& v) {
    for (auto& w : v) {
        unsigned long long x;
        if (std::scanf("%llu", &x) != 1) return false;
        w = (fe_word_t)x;
    }
    return true;
}

static void print_words(const char* tag, const std::vector<fe_word_t>& v) {
    std::printf("%s", tag);
    for (auto w : v) std::printf(" %llu", (unsigned long long)w);
    std::printf("\n");
}

#if defined(__CUDACC__)
__global__ void compute_all(size_t n, const fe_word_t* a, const fe_word_t* b, const fe_word_t* bm,
                            const int* sh, Outs o, int* status) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int code = compute(i, n, a, b, bm, sh, o);
    if (code != 0) atomicMax(status, code);
}

template <typename T>
static T* to_device(const std::vector<T>& v) {
    T* d = nullptr;
    if (cudaMalloc(&d, v.size() * sizeof(T)) != cudaSuccess) return nullptr;
    cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
    return d;
}
#endif

int main() {
    unsigned long long n = 0;
    if (std::scanf("%llu", &n) != 1) return 1;
    const size_t len = (size_t)FE_WORDS * n;
    std::vector<fe_word_t> a(len), b(len), bm(len);
    std::vector<int> sh(n);
    if (!read_words(a) || !read_words(b) || !read_words(bm)) return 1;
    for (auto& s : sh) if (std::scanf("%d", &s) != 1) return 1;
    const size_t sizes[12] = {len, len, len, len, len, len, len, len, len, n, n, (size_t)FE_WORDS * 2};
    std::vector<std::vector<fe_word_t>> outs;
    for (size_t s : sizes) outs.emplace_back(s);
#if defined(__CUDACC__)
    fe_word_t* dev[12];
    for (int t = 0; t < 12; ++t) dev[t] = to_device(outs[t]);
    Outs o = {dev[0], dev[1], dev[2], dev[3], dev[4], dev[5], dev[6], dev[7], dev[8], dev[9], dev[10],
              dev[11]};
    int* status = to_device(std::vector<int>(1, 0));
    compute_all<<<(unsigned)((n + 127) / 128), 128>>>(n, to_device(a), to_device(b), to_device(bm),
                                                      to_device(sh), o, status);
    int code = 0;
    if (cudaMemcpy(&code, status, sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) {
        std::fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    if (code != 0) return code;
    for (int t = 0; t < 12; ++t)
        cudaMemcpy(outs[t].data(), dev[t], outs[t].size() * sizeof(fe_word_t), cudaMemcpyDeviceToHost);
#else
    Outs o = {outs[0].data(), outs[1].data(), outs[2].data(), outs[3].data(), outs[4].data(),
              outs[5].data(), outs[6].data(), outs[7].data(), outs[8].data(), outs[9].data(),
              outs[10].data(), outs[11].data()};
    for (size_t i = 0; i < n; ++i) {
        const int code = compute(i, n, a.data(), b.data(), bm.data(), sh.data(), o);
        if (code != 0) return code;
    }
#endif
    for (int t = 0; t < 12; ++t) print_words(TAGS[t], outs[t]);
    return 0;
}
