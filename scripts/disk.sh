#!/bin/sh
# Stage 5b: a fresh ext4 image for the guest's virtio-blk disk.
# usage: disk.sh IMAGE SIZE_MB
# The guest reads the marker file zc-disk to check it got this disk;
# tests and the benchmark write their own files into it.
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help|"") echo "usage: $0 IMAGE SIZE_MB"; exit 0 ;; esac
IMG=$1
SIZE=${2:-256}
case "$SIZE" in *[!0-9]*|"") die "disk size '$SIZE' is not a number of MiB" ;; esac

STAGE=$(mktemp -d)
echo "zone-compaction test disk" > "$STAGE/zc-disk"
rm -f "$IMG"
truncate -s "${SIZE}M" "$IMG"
mkfs.ext4 -q -F -L zc -d "$STAGE" "$IMG" || die "mkfs.ext4 failed"
rm -rf "$STAGE"
say "disk: $IMG, ${SIZE} MiB ext4"
