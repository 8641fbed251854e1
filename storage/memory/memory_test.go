package memory_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage/memory"
	"github.com/simrt/simrt/storage/storagetest"
)

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(*testing.T) simrt.Storage { return memory.New() })
}
