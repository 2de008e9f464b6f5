#!/bin/sh
set -e
SRC="$1"
DEST=backups
mkdir -p "$DEST"
tar -czf "$DEST/backup.tar.gz" "$SRC"
echo "backup written"
