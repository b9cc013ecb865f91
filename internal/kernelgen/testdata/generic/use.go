package generic

func use() {
	_ = LaunchFill[uint16](nil, 0, 0, 0, nil, 7)
	_ = LaunchFill(nil, 0, 0, 0, nil, int64(3))
	_ = LaunchFill(nil, 0, 0, 0, nil, 2.5) // float64, as Go infers it
}
