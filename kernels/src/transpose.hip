// transpose: out (cols x rows) = in (rows x cols)^T, both row-major.
#include "hipgo.h"

#define TILE 32
#define BLOCK_ROWS 8

// A 32x32 tile goes through shared memory so that both the read of in and the
// write of out are coalesced; the extra column keeps the column reads free of
// bank conflicts. Launch with block (32, 8) and grid (ceil(cols/32),
// ceil(rows/32)); each thread moves 4 rows of the tile.
__launch_bounds__(TILE * BLOCK_ROWS)
HIPGO_KERNEL void transpose(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x; // column of in
  int y = blockIdx.y * TILE + threadIdx.y; // row of in
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[(long)(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x; // column of out (a row of in)
  y = blockIdx.x * TILE + threadIdx.y; // row of out (a column of in)
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (x < rows && y + j < cols)
      out[(long)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
