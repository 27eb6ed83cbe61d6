__device__ __noinline__ float f0(float x)
{
    return x + 1;
}
__device__ __noinline__ float f1(float x)
{
    return x * 2;
}
__device__ __noinline__ float f2(float x)
{
    return x - 3;
}
typedef float (*fp)(float);
__global__ void indirect_kernel(float* a, int k)
{
    fp t[3] = {f0, f1, f2};
    a[threadIdx.x] = t[k % 3](a[threadIdx.x]);
}
__global__ void switch_kernel(float* a, int k)
{
    float x = a[threadIdx.x];
    switch (k) {
    case 0:
        x += 1;
        break;
    case 1:
        x *= 3;
        break;
    case 2:
        x -= 7;
        break;
    case 3:
        x = sqrtf(x);
        break;
    case 4:
        x = x * x * x;
        break;
    case 5:
        x = 1 / x;
        break;
    case 6:
        x = __sinf(x);
        break;
    default:
        x = 0;
    }
    a[threadIdx.x] = x;
}
