// Fork-joins that stall. An OpenMP join waits for every thread of the team, and where other
// processes hold the cores a worker can wait a whole scheduler slice to run its share: with two
// busy processes beside it on 2 cores, the MLP at batch 1 took ~20 ms a call instead of ~0.05
// (and eager, whose regions share the pool, ~0.4 ms instead of 0.07). A team region in which the
// calling thread, its own share done, waited far longer than the share took is a stall; after
// one, the regions that ask here run on the calling thread for a while (256 regions, doubling
// while stalls go on, at most 65536) and are then tried as teams again. A preemption of the
// calling thread itself is not counted: it costs the same without a team.
#pragma once

#ifdef _OPENMP
#include <omp.h>
#endif

namespace glassbox::runtime {

class TeamStalls {
 public:
  // Whether a region may fork a team now (false while backing off; counts the region skipped).
  static bool may_fork();
  // After a team region in which the calling thread worked `worked` seconds and waited for the
  // others `waited` seconds.
  static void record(double worked, double waited);
  // Stalls are waits over this long and over kStallRatio times the calling thread's work. Waking
  // a team whose workers slept takes ~250-350 µs on the 2-core VM measured: over a 200 µs floor
  // that counted as a stall now and then, and each sent 256 regions to one thread (a Llama at
  // 8 x 128 ran 1.5x slower in one process out of three). A core held by another process costs
  // a scheduler slice, milliseconds.
  static constexpr double kStallSeconds = 1e-3;
  static constexpr double kStallRatio = 10.0;
};

double monotonic_seconds();

// Times one team region for TeamStalls: made before the region, `part` runs each thread's share
// (timing the calling thread's, part 0), and the destructor, after the join, records the work
// against the wait.
class TeamRegion {
 public:
  TeamRegion() : start_(monotonic_seconds()) {}
  TeamRegion(const TeamRegion&) = delete;
  TeamRegion& operator=(const TeamRegion&) = delete;
  ~TeamRegion() { TeamStalls::record(worked_, monotonic_seconds() - start_ - worked_); }

  template <typename Share>
  void part(int index, Share&& share) {
    if (index != 0) {
      share();
      return;
    }
    const double t0 = monotonic_seconds();
    share();
    worked_ += monotonic_seconds() - t0;
  }

 private:
  double start_;
  double worked_ = 0;  // by the calling thread
};

// The threads a team may have: OpenMP's pool, or 1 inside a parallel region or without OpenMP.
inline int max_team() {
#ifdef _OPENMP
  return omp_in_parallel() ? 1 : omp_get_max_threads();
#else
  return 1;
#endif
}

// Runs share(part, parts) for each part of a team of `team` threads, timed for TeamStalls; on
// the calling thread alone (share(0, 1)) for a team of one or while teams back off after a stall.
// Parts must not change what each element computes, only who computes it.
template <typename Share>
void run_team(int team, Share&& share) {
  if (team < 2 || !TeamStalls::may_fork()) {
    share(0, 1);
    return;
  }
  TeamRegion region;
#ifdef _OPENMP
#pragma omp parallel num_threads(team)
  {
    const int part = omp_get_thread_num(), parts = omp_get_num_threads();
    region.part(part, [&] { share(part, parts); });
  }
#else
  region.part(0, [&] { share(0, 1); });
#endif
}

}  // namespace glassbox::runtime
