//! The memory this process can have now (Linux): what the system has available, lowered to what
//! its control groups (a container's, a Kubernetes pod's or a Slurm job's memory limit) have left.
//! The engine refuses a hash table above it, and the tablebase generator a table whose estimated
//! peak is above it, before any of the memory is touched: the system would grant it and stop the
//! process when it is first written.

use std::path::{Path, PathBuf};

/// The memory this process can have now without swapping or being stopped, in bytes (Linux):
/// `MemAvailable` of `/proc/meminfo`, lowered to what the process's control groups have left
/// below their memory limits (a container's, a Kubernetes pod's or a Slurm job's limit, which
/// `MemAvailable` does not see); `None` where neither is known.
pub fn available() -> Option<u64> {
    let system = std::fs::read_to_string("/proc/meminfo").ok().and_then(|info| mem_available(&info));
    let groups = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|groups| cgroup_room(&groups, Path::new("/sys/fs/cgroup")));
    match (system, groups) {
        (Some(system), Some(groups)) => Some(system.min(groups)),
        (system, groups) => system.or(groups),
    }
}

/// `MemAvailable` of the text of `/proc/meminfo`, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024)
}

/// What the control groups named in `cgroups` (the text of `/proc/self/cgroup`) leave below
/// their memory limits, in bytes, with the cgroup file system mounted at `root`: the least, over
/// the process's group and every group above it, of its limit less its working set (its usage
/// less the file cache it can drop at once, `inactive_file`, as Kubernetes counts it). cgroup v2
/// (`memory.max`, `memory.current`) and v1's memory controller (`memory.limit_in_bytes`,
/// `memory.usage_in_bytes`); `None` when no group has a limit or none can be read.
fn cgroup_room(cgroups: &str, root: &Path) -> Option<u64> {
    let read = |path: PathBuf| std::fs::read_to_string(path).ok();
    let number = |text: &str| text.trim().parse::<u64>().ok();
    let stat =
        |text: &str, key: &str| text.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(' ')).and_then(number);
    let mut room: Option<u64> = None;
    for line in cgroups.lines() {
        // `ID:CONTROLLERS:PATH`: `0::PATH` is the v2 group; v1's memory controller is named.
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let (base, limit_file, usage_file, cache_key) = if controllers.is_empty() {
            (root.to_path_buf(), "memory.max", "memory.current", "inactive_file")
        } else if controllers.split(',').any(|c| c == "memory") {
            (root.join("memory"), "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file")
        } else {
            continue;
        };
        // The group's directory and those above it, up to the mount point.
        let mut dir = base.join(path.trim_start_matches('/'));
        loop {
            // v2 says `max` for no limit; v1 gives a number near 2^63.
            let limit = read(dir.join(limit_file)).and_then(|t| number(&t)).filter(|&l| l < 1 << 62);
            if let Some(limit) = limit {
                let usage = read(dir.join(usage_file)).and_then(|t| number(&t)).unwrap_or(0);
                let cache = read(dir.join("memory.stat")).and_then(|t| stat(&t, cache_key)).unwrap_or(0);
                let left = limit.saturating_sub(usage.saturating_sub(cache));
                room = Some(room.map_or(left, |r| r.min(left)));
            }
            if dir == base || !dir.pop() || !dir.starts_with(&base) {
                break;
            }
        }
    }
    room
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_gives_mem_available_in_bytes() {
        let info = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(mem_available(info), Some(20_000_000 * 1024));
        assert_eq!(mem_available("MemTotal: 5 kB\n"), None);
        assert_eq!(mem_available("MemAvailable: many kB\n"), None);
    }

    /// Writes `files` (path under `root`, contents) for a made-up cgroup file system.
    fn cgroup_tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = root.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        root
    }

    #[test]
    fn a_control_groups_limit_less_its_working_set_is_the_room_left() {
        let gib = 1u64 << 30;
        // cgroup v2: the pod's limit of 2 GiB is above the container's group, which has none.
        let v2 = cgroup_tree(&[
            ("kubepods/pod1/memory.max", &format!("{}\n", 2 * gib)),
            ("kubepods/pod1/memory.current", &format!("{}\n", gib)),
            ("kubepods/pod1/memory.stat", &format!("anon 1\ninactive_file {}\nactive_file 7\n", gib / 2)),
            ("kubepods/pod1/engine/memory.max", "max\n"),
            ("kubepods/pod1/engine/memory.current", "12345\n"),
            ("kubepods/memory.max", "max\n"),
        ]);
        let groups = "0::/kubepods/pod1/engine\n";
        // 2 GiB less (1 GiB used, of which 0.5 GiB droppable file cache).
        assert_eq!(cgroup_room(groups, v2.path()), Some(2 * gib - gib / 2));
        // A tighter limit lower down counts.
        std::fs::write(v2.path().join("kubepods/pod1/engine/memory.max"), format!("{}", gib)).unwrap();
        assert_eq!(cgroup_room(groups, v2.path()), Some(gib - 12345));
        // No limit anywhere, or no such group: nothing known.
        assert_eq!(cgroup_room("0::/kubepods\n", v2.path()), None);
        assert_eq!(cgroup_room("0::/elsewhere\n", v2.path()), None);
        assert_eq!(cgroup_room("garbage", v2.path()), None);

        // cgroup v1: the memory controller's own hierarchy; "unlimited" is a number near 2^63.
        let v1 = cgroup_tree(&[
            ("memory/docker/abc/memory.limit_in_bytes", &format!("{}", 3 * gib)),
            ("memory/docker/abc/memory.usage_in_bytes", &format!("{}", gib)),
            ("memory/docker/abc/memory.stat", &format!("cache 9\ntotal_inactive_file {}\n", gib / 4)),
            ("memory/memory.limit_in_bytes", "9223372036854771712"),
        ]);
        let groups = "12:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n0::/\n";
        assert_eq!(cgroup_room(groups, v1.path()), Some(3 * gib - (gib - gib / 4)));
        // Usage above the limit (the group is being reclaimed) leaves nothing.
        std::fs::write(v1.path().join("memory/docker/abc/memory.usage_in_bytes"), format!("{}", 4 * gib)).unwrap();
        std::fs::write(v1.path().join("memory/docker/abc/memory.stat"), "").unwrap();
        assert_eq!(cgroup_room(groups, v1.path()), Some(0));
    }
}
