// A host executable embedding kernels.cu for the extraction tests.
#include "kernels.cu"

int main()
{
    return 0;
}
