package kernelgen

// warpPrelude is the masked warp operations and the warp reductions,
// written where a kernel uses them.
const warpPrelude = ``
