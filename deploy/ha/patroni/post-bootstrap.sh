#!/bin/sh
# Patroni runs this once after bootstrapping the cluster, with a connection URL as $1.
set -e
psql -d "$1" -v ON_ERROR_STOP=1 -c 'CREATE DATABASE hub'
