// Package ipcgpu holds the two-process IPC test for GPU drivers, which
// runs on whatever device the machine has (gpu/stream's tests run on the
// cpu agent alone).
package ipcgpu
