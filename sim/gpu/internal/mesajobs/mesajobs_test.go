package mesajobs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/hw/jobfile"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/uapi"
)

// jobs are the recorded jobs, by name (the file's, without .vc4job):
// those of testdata, or those VC4SIM_JOBS names (a file pattern, such as
// "/tmp/rec/*.vc4job"), to check and time jobs recorded from any program
// with vc4serve -record-jobs.
func jobs(t testing.TB) map[string]*jobfile.Job {
	t.Helper()
	pattern := os.Getenv("VC4SIM_JOBS")
	if pattern == "" {
		pattern = filepath.Join("testdata", "*.vc4job")
	}
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no recorded jobs match %s (%v)", pattern, err)
	}
	out := map[string]*jobfile.Job{}
	for _, p := range paths {
		j, err := jobfile.Load(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".vc4job")] = j
	}
	return out
}

// place puts j in a pool of its own, which the test closes at its end.
func place(t testing.TB, j *jobfile.Job) *jobfile.Replay {
	t.Helper()
	pool, err := mem.NewPool(mem.DefaultBase, mem.DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	rp, err := j.Place(pool)
	if err != nil {
		t.Fatal(err)
	}
	return rp
}

// outcome is what a job left behind: the bytes of every region it could
// write, its performance counters and its end.
type outcome struct {
	written  map[mem.Region][]byte
	counters hw.Counters
	res      hw.Result
	faults   uint64
}

// run runs rp's job from its recorded start on g.
func run(t *testing.T, g *gpu.GPU, rp *jobfile.Replay) outcome {
	t.Helper()
	rp.Reset()
	var o outcome
	job := rp.Job
	job.Counters = &o.counters
	o.res = g.Run(&job)
	o.faults, _ = job.Mem.Faults()
	o.written = map[mem.Region][]byte{}
	for _, gr := range job.Mem.Grants() {
		if gr.Access&mem.Write != 0 {
			b, err := job.Mem.Read(gr.Addr, gr.Size, "test")
			if err != nil {
				t.Fatal(err)
			}
			o.written[gr.Region] = append([]byte(nil), b...)
		}
	}
	return o
}

// TestFastPathsMatchReference runs each recorded Mesa job on the GPU
// model's fast paths and on its general code (gpu.Options.Reference):
// every byte the job may write, every performance counter and the job's
// end must be the same. It is TestKmscube's exact mode (simserve) without
// qemu and Mesa, on the jobs of testdata.
func TestFastPathsMatchReference(t *testing.T) {
	fast := gpu.New(gpu.Options{})
	defer fast.Close()
	ref := gpu.New(gpu.Options{Reference: true})
	defer ref.Close()
	for name, j := range jobs(t) {
		t.Run(name, func(t *testing.T) {
			rp := place(t, j)
			want := run(t, ref, rp)
			if want.res.Hung || want.faults != 0 {
				t.Fatalf("the recorded job does not run cleanly on the general code: hung %v (%v), %d faults", want.res.Hung, want.res.Reason, want.faults)
			}
			// The jobs of testdata were chosen to draw (another program's
			// may only clear, or copy).
			if want.counters[uapi.PerfcntTLBQuadsWrittenToColorBuf] == 0 && os.Getenv("VC4SIM_JOBS") == "" {
				t.Fatalf("no quad reached the colour buffer: counters %v", want.counters)
			}
			got := run(t, fast, rp)
			if got.res.Hung != want.res.Hung || got.res.Regs != want.res.Regs || got.faults != want.faults {
				t.Errorf("end: fast path hung %v regs %+v faults %d; general code hung %v regs %+v faults %d",
					got.res.Hung, got.res.Regs, got.faults, want.res.Hung, want.res.Regs, want.faults)
			}
			if got.counters != want.counters {
				for i := range got.counters {
					if got.counters[i] != want.counters[i] {
						t.Errorf("counter %d: fast path %d, general code %d", i, got.counters[i], want.counters[i])
					}
				}
			}
			for r, w := range want.written {
				if g := got.written[r]; !bytes.Equal(g, w) {
					t.Errorf("region %v: %s", r, firstDiff(g, w))
				}
			}
		})
	}
}

// firstDiff says where two byte slices of the same region first differ
// and how many bytes do.
func firstDiff(got, want []byte) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	n, first := 0, -1
	for i := range got {
		if got[i] != want[i] {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	return fmt.Sprintf("%d bytes differ, the first at offset %#x: fast path %#02x, general code %#02x", n, first, got[first], want[first])
}

// BenchmarkMesaJob runs each recorded Mesa job on the GPU model over and
// over (as cubetest's BenchmarkGPUJob does vccube's frame) and reports
// frames per second of the model alone. The job is put back to its
// recorded start once, before the timer, not between runs: every run
// does the same work (the jobs clear their tiles, or load what the run
// before stored, which costs the same).
func BenchmarkMesaJob(b *testing.B) { benchJobs(b, gpu.Options{}) }

// BenchmarkJobOnGeneralCode is BenchmarkMesaJob on the model's general code
// (gpu.Options.Reference): the yardstick for what the fast paths gain on
// Mesa's shaders and control lists, as cubetest's BenchmarkFrameOnGeneralCode
// is for vccube's.
func BenchmarkJobOnGeneralCode(b *testing.B) { benchJobs(b, gpu.Options{Reference: true}) }

func benchJobs(b *testing.B, opts gpu.Options) {
	all := jobs(b)
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			g := gpu.New(opts)
			defer g.Close()
			rp := place(b, all[name])
			if res := g.Run(&rp.Job); res.Hung {
				b.Fatal(res.Reason)
			}
			rp.Reset()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if res := g.Run(&rp.Job); res.Hung {
					b.Fatal(res.Reason)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "fps")
		})
	}
}
