// Kernel::Auto's first source: the tuning database's winners for the current device, read once per
// process and device (default_tuning_db_path()) into the device context. A database that cannot be
// read, and entries whose config does not parse, are ignored with one warning through the log
// callback (tilegemm/log.hpp); the analytic chooser then decides.
#pragma once
#include "ops/config.hpp"
#include "ops/problem.hpp"
#include "tune/database.hpp"

namespace tilegemm {
namespace detail {

struct DeviceContext;

// The stored config for `p` on the context's device (an empty config when none), parsed by the family
// that claims its text. Whether it can run `p` is the chooser's check (an entry may have been
// measured with other leading dimensions or extents).
ops::Config tuned_config(const DeviceContext& ctx, const ops::Problem& p);
// Makes a winner just stored by the tuner visible to Auto in this process.
void remember_tuned(const DeviceContext& ctx, const TunedEntry& e);
// Drops every device's loaded entries and the chooser's remembered picks: the next Auto choice reads
// the database again.
void forget_tuned_tables();

}  // namespace detail
}  // namespace tilegemm
