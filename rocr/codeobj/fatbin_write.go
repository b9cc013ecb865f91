package codeobj

// FatbinCode is one code object to put into an NVIDIA fat binary.
type FatbinCode struct {
	PTX  bool   // PTX text; otherwise a cubin
	Arch uint32 // the SM it is for: 90 for sm_90 (or compute_90)
	Code []byte
}

// NVFatbin lays entries out as the NVIDIA fat binary nvcc -fatbin writes
// (uncompressed), which Parse reads back: a cubin beside the PTX of the
// same source is completed from it (parameter types, dynamic shared
// memory), which a cubin alone does not record.
func NVFatbin(entries ...FatbinCode) []byte {
	var body []byte
	for _, e := range entries {
		payload := e.Code
		kind := uint16(nvKindCubin)
		if e.PTX {
			kind = nvKindPTX
			payload = append(append([]byte(nil), payload...), 0) // NUL-terminated text
		}
		padded := (len(payload) + 7) &^ 7
		h := make([]byte, nvEntryMinSize)
		le.PutUint16(h, kind)
		le.PutUint16(h[2:], 0x101)
		le.PutUint32(h[4:], nvEntryMinSize)
		le.PutUint64(h[8:], uint64(padded))
		le.PutUint32(h[28:], e.Arch)
		le.PutUint64(h[40:], nvFlag64Bit|0x10)
		body = append(body, h...)
		body = append(body, payload...)
		body = append(body, make([]byte, padded-len(payload))...)
	}
	hdr := make([]byte, nvFatbinHdrSize, nvFatbinHdrSize+len(body))
	le.PutUint32(hdr, nvFatbinMagic)
	le.PutUint16(hdr[4:], 1)
	le.PutUint16(hdr[6:], nvFatbinHdrSize)
	le.PutUint64(hdr[8:], uint64(len(body)))
	return append(hdr, body...)
}
