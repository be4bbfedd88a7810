/* validate_ref.c: deterministic test data and the CPU references the GPU results are held to. */
#include "validate_int.h"

void cc_val_fill(float *v, size_t n, uint32_t seed)
{
    uint32_t s = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u; /* Numerical Recipes LCG */
        int k = (int)((s >> 16) % 17u) - 8;
        v[i] = (float)k / 8.0f;
    }
}

void cc_val_ref_conv(const float *x, const float *w, double *y, int n, int c, int h, int wd, int k,
                     int r, int s, int pad, int stride, int oh, int ow)
{
    for (int in = 0; in < n; in++)
        for (int ik = 0; ik < k; ik++)
            for (int oy = 0; oy < oh; oy++)
                for (int ox = 0; ox < ow; ox++) {
                    double acc = 0;
                    for (int ic = 0; ic < c; ic++)
                        for (int ir = 0; ir < r; ir++)
                            for (int is = 0; is < s; is++) {
                                int iy = oy * stride - pad + ir;
                                int ix = ox * stride - pad + is;
                                if (iy < 0 || iy >= h || ix < 0 || ix >= wd)
                                    continue;
                                acc += (double)x[((size_t)(in * c + ic) * h + iy) * wd + ix] *
                                       (double)w[((size_t)(ik * c + ic) * r + ir) * s + is];
                            }
                    y[((size_t)(in * k + ik) * oh + oy) * ow + ox] = acc;
                }
}

void cc_val_ref_relu(const float *x, double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] > 0 ? (double)x[i] : 0.0;
}

void cc_val_ref_maxpool(const float *x, double *y, int n, int c, int h, int w, int win, int oh,
                        int ow)
{
    for (int p = 0; p < n * c; p++)
        for (int oy = 0; oy < oh; oy++)
            for (int ox = 0; ox < ow; ox++) {
                double m = -1e300;
                for (int dy = 0; dy < win; dy++)
                    for (int dx = 0; dx < win; dx++) {
                        int iy = oy * win + dy, ix = ox * win + dx;
                        if (iy < h && ix < w && x[((size_t)p * h + iy) * w + ix] > m)
                            m = x[((size_t)p * h + iy) * w + ix];
                    }
                y[((size_t)p * oh + oy) * ow + ox] = m;
            }
}

int cc_val_compare(const float *got, const double *ref, size_t n, double tol, double *max_abs)
{
    int ok = 1;
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        double g = got[i];
        if (g != g) { /* NaN */
            ok = 0;
            m = 1e300;
            continue;
        }
        double d = g > ref[i] ? g - ref[i] : ref[i] - g;
        double mag = ref[i] < 0 ? -ref[i] : ref[i];
        if (d > m)
            m = d;
        if (d > tol * (1.0 + mag))
            ok = 0;
    }
    *max_abs = m;
    return ok;
}
