#!/usr/bin/env bash
# Packs HYPRE's src/ (the newest v3.x release tag, or HYPRE_TAG) from a bare git mirror of
# github.com/hypre-space/hypre into .carry/hypre-src.tar.xz (git-ignored), for the device check's
# `hypre` stage (scripts/device-hypre.sh), which builds HYPRE with CUDA on the GPU machine.
#   scripts/fetch-hypre-src.sh [MIRROR_GIT_DIR]
# MIRROR_GIT_DIR (or HYPRE_MIRROR): a bare or normal git directory of the hypre repository, e.g.
# /work/.mirror/hypre-space+hypre/repo (the session `fetch` tool: github:hypre-space/hypre).
# HYPRE_TAG: a tag to pack instead of the newest v3.x. The archive unpacks to hypre-<tag>/src/...
# and holds hypre-<tag>/TAG (the tag and its commit).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mirror="${1:-${HYPRE_MIRROR:-/work/.mirror/hypre-space+hypre/repo}}"
[ -d "$mirror" ] || { echo "no hypre git directory at $mirror (argument or HYPRE_MIRROR)" >&2; exit 1; }
# A bare directory is its own git dir; a work tree's is .git.
if [ -f "$mirror/HEAD" ]; then gd="$mirror"; elif [ -d "$mirror/.git" ]; then gd="$mirror/.git"; else gd="$mirror"; fi
tag="${HYPRE_TAG:-$(git --git-dir="$gd" tag -l 'v3.*' | sort -V | tail -1)}"
[ -n "$tag" ] || { echo "no v3.x tag in $mirror" >&2; exit 1; }
commit="$(git --git-dir="$gd" rev-parse "$tag^{commit}")"
out="$root/.carry/hypre-src.tar.xz"
mkdir -p "$root/.carry"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
prefix="hypre-$tag"
git --git-dir="$gd" archive --format=tar --prefix="$prefix/" "$commit" src > "$tmp/src.tar"
mkdir -p "$tmp/$prefix"
echo "$tag $commit" > "$tmp/$prefix/TAG"
tar -rf "$tmp/src.tar" -C "$tmp" "$prefix/TAG"
xz -T2 -9 -c "$tmp/src.tar" > "$out.part"
mv "$out.part" "$out"
echo "$out: $tag ($commit), $(du -h "$out" | cut -f1)"
