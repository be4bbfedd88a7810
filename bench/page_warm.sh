# page_warm.sh: sourced by the benches that time writes into the page cache.
#
# On a VM whose balloon reports free pages to the host (virtio_balloon with
# VIRTIO_BALLOON_F_REPORTING, feature bit 5: the Firecracker guests these benches run on), memory
# the guest freed a few seconds ago has been handed back, and the first write into each page of
# it faults on the host. Measured here: dd of 1.5 GB of zeros into a new file ran at 0.39–0.44 GB/s
# into such memory and at 5.2–5.6 GB/s into memory freed a moment before; the same CUDA-tree
# install took 1.50–1.60 s after 6 s idle and 0.48–0.51 s right after a page_warm. A timed command
# would be measured against the host's page faults and against how long the bench had been idle
# before it, and a tool that writes more bytes (the cold wheel's download kept in the cache) would
# pay for them 13 times over.
#
# page_warm DIR: writes PAGE_WARM_MB (default 2048) MiB of zeros to a file on DIR's filesystem
# and deletes it unsynced (no disk I/O: delayed allocation), just before a timed command, so that
# every tool in a bench writes into memory the guest holds. PAGE_WARM_MB=0 turns it off (the raw
# figures). page_warm_state prints what this machine does, for the bench's header.
page_warm() {
  local mb=${PAGE_WARM_MB:-2048} f
  [ "$mb" -gt 0 ] || return 0
  f=$1/.page-warm.$$
  # a filesystem without the room: as much as fits (dd stops at ENOSPC), and the bench goes on
  dd if=/dev/zero of="$f" bs=1M count="$mb" status=none 2>/dev/null || true
  rm -f "$f"
}

page_warm_state() {
  local rep=no d
  for d in /sys/bus/virtio/drivers/virtio_balloon/virtio*; do
    [ -r "$d/features" ] && [ "$(cut -c6 "$d/features")" = 1 ] && rep=yes
  done
  echo "page cache: the balloon reports free pages to the host: $rep; page_warm ${PAGE_WARM_MB:-2048} MiB before each timed command"
}
