// Package storage holds what every blob storage of simrt shares: the
// versioned, checksummed header each blob starts with, and the rules for
// partition and blob names (and their length limits, the same in every
// storage). The implementations live in the packages below
// it:
//
//   - memory: the simulator's store, with durable state apart from each
//     handle's view, snapshots and crash helpers;
//   - faulty: fault injection and the crash journal, over memory;
//   - audited: feeds every operation to the runtime's auditor;
//   - metered: the runtime_ storage metrics;
//   - disk: the production store, one file per blob;
//   - storagetest: the conformance suite every implementation passes.
//
// A storage's StartSync returns a handle it completes itself: NewCompletion
// makes one and the function that completes it, Ready one already complete.
// They are here, not in the root package, so that the user's API gives no
// way to complete a handle.
//
// # Header
//
// A blob's first HeaderSize bytes are its header: the magic "CWIK", the
// runtime layout version (1), the blob version, a CRC-32C of those eight
// bytes and zero padding. Logical offsets start after it. Blobs of the
// legacy layout ("CWIC", an 8-byte header) are still read and written.
// Resolve decides, from a blob's first bytes, whether it is valid, new, or
// left torn by an interrupted creation, and never asks to overwrite data
// that may have been durable, nor a file that is not a blob: only an empty
// file or the exact pattern a torn creation leaves is new; anything else,
// even a file of a few bytes, is corrupt.
//
//	h, err := storage.Resolve(head, rawLen, simrt.VersionRange{Min: 0, Max: 0})
//	if err == nil && h.Fresh {
//		// truncate the file, write storage.NewHeader(0), sync it
//	}
package storage
