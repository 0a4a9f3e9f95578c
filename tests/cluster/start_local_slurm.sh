#!/usr/bin/env bash
# Bring up a single-node SLURM (munge + MariaDB + slurmdbd + slurmctld + slurmd) on this host,
# for tests/cluster/test_slurm.py and CI. Idempotent: running it again on a machine where the
# cluster is already up changes nothing and exits 0 as soon as `sinfo` shows the node idle.
# Needs root and Debian packages (installed here when missing). No systemd: daemons are started
# directly. Exit status 0 = node idle and accounting (sacct) answering; anything else = failure.
#
#   bash tests/cluster/start_local_slurm.sh            # install if needed, configure, start, wait
#   SLURM_SKIP_INSTALL=1 bash tests/cluster/start_local_slurm.sh   # never call apt-get
set -euo pipefail

CLUSTER_NAME=${SLURM_CLUSTER_NAME:-ensemblerepro}
PARTITION=${SLURM_PARTITION_NAME:-debug}
DB_NAME=slurm_acct_db
DB_USER=slurm
DB_PASS=${SLURM_DB_PASS:-slurmdbpass}
WAIT_SECONDS=${SLURM_WAIT_SECONDS:-120}

log() { printf '[start_local_slurm] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
running() { pgrep -x "$1" >/dev/null 2>&1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (starts system daemons, writes /etc/slurm)"

# --- packages -------------------------------------------------------------------------------
need_install=0
for bin in slurmctld slurmd slurmdbd sacctmgr munged mariadbd; do
    command -v "$bin" >/dev/null 2>&1 || [ -x "/usr/sbin/$bin" ] || need_install=1
done
if [ "$need_install" -eq 1 ]; then
    [ -z "${SLURM_SKIP_INSTALL:-}" ] || die "SLURM packages missing and SLURM_SKIP_INSTALL is set"
    log "installing slurm-wlm munge mariadb-server slurmdbd"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq slurm-wlm munge mariadb-server slurmdbd >/dev/null
fi
export PATH="/usr/sbin:/sbin:$PATH"

HOST=$(hostname -s)
NCPU=$(nproc)
MEM_MB=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
# A little under the machine's memory: slurmd drains a node whose RealMemory exceeds what it sees.
REAL_MEM=$(( MEM_MB * 9 / 10 ))
getent hosts "$HOST" >/dev/null || echo "127.0.0.1 $HOST" >> /etc/hosts

mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/slurm

# --- configuration (rewritten only when its content changes) ---------------------------------
write_if_changed() {  # write_if_changed PATH MODE < content ; prints "changed" when it did
    local path=$1 mode=$2 tmp
    tmp=$(mktemp "$path.XXXXXX")
    cat > "$tmp"
    chmod "$mode" "$tmp"
    if [ -f "$path" ] && cmp -s "$tmp" "$path"; then
        rm -f "$tmp"
    else
        mv -f "$tmp" "$path"
        echo changed
    fi
}

slurm_conf_changed=$(write_if_changed /etc/slurm/slurm.conf 644 <<CONF
# Single-node test cluster written by tests/cluster/start_local_slurm.sh (do not edit by hand).
ClusterName=$CLUSTER_NAME
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
SchedulerType=sched/backfill
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=30
JobCompType=jobcomp/none
# sacct shows the plugin's per-job comment (rule_<name>_wildcards_<...>): tests match retries by it.
AccountingStoreFlags=job_comment
# Quick turnaround for tests: a finished job's record stays visible to squeue/sacct.
MinJobAge=300
KillWait=5
InactiveLimit=0
SlurmdTimeout=60
DefMemPerCPU=1000
NodeName=$HOST CPUs=$NCPU RealMemory=$REAL_MEM State=UNKNOWN
PartitionName=$PARTITION Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
CONF
)

# slurmdbd refuses a config readable by others (it holds the DB password).
dbd_conf_changed=$(write_if_changed /etc/slurm/slurmdbd.conf 600 <<CONF
# Accounting daemon for the single-node test cluster (tests/cluster/start_local_slurm.sh).
AuthType=auth/munge
DbdHost=localhost
SlurmUser=root
PidFile=/run/slurm/slurmdbd.pid
LogFile=/var/log/slurm/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=$DB_USER
StoragePass=$DB_PASS
StorageLoc=$DB_NAME
CONF
)
chown root:root /etc/slurm/slurmdbd.conf

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
    local seconds=$1 what=$2; shift 2
    local i
    for ((i = 0; i < seconds * 2; i++)); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.5
    done
    die "timed out after ${seconds}s waiting for $what"
}

# --- munge ------------------------------------------------------------------------------------
if ! running munged; then
    log "starting munged"
    [ -s /etc/munge/munge.key ] || { mungekey --create --force 2>/dev/null || create-munge-key -f; }
    mkdir -p /run/munge /var/lib/munge /var/log/munge
    chown munge:munge /run/munge /var/lib/munge /var/log/munge /etc/munge /etc/munge/munge.key
    chmod 0755 /run/munge
    chmod 0400 /etc/munge/munge.key
    runuser -u munge -- munged
fi
wait_for 20 "munge" sh -c 'munge -n | unmunge'

# --- MariaDB + accounting database ----------------------------------------------------------
if ! mysqladmin ping --silent >/dev/null 2>&1; then
    log "starting MariaDB"
    mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
    nohup mysqld_safe >/var/log/slurm/mysqld_safe.log 2>&1 &
fi
wait_for 60 "MariaDB" mysqladmin ping --silent
mysql -u root <<SQL
CREATE DATABASE IF NOT EXISTS $DB_NAME;
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASS';
GRANT ALL PRIVILEGES ON $DB_NAME.* TO '$DB_USER'@'localhost';
FLUSH PRIVILEGES;
SQL

# --- slurmdbd ---------------------------------------------------------------------------------
if running slurmdbd && [ -n "$dbd_conf_changed" ]; then
    die "slurmdbd is running with an older /etc/slurm/slurmdbd.conf; stop it (kill \$(cat /run/slurm/slurmdbd.pid)) and rerun"
fi
if ! running slurmdbd; then
    log "starting slurmdbd"
    slurmdbd
fi
wait_for 60 "slurmdbd" sacctmgr -n list cluster
if ! sacctmgr -n -P list cluster format=cluster | grep -qx "$CLUSTER_NAME"; then
    log "registering cluster $CLUSTER_NAME in the accounting database"
    sacctmgr -i add cluster "$CLUSTER_NAME" >/dev/null
fi

# --- slurmctld, slurmd ------------------------------------------------------------------------
if ! running slurmctld; then
    log "starting slurmctld"
    slurmctld
elif [ -n "$slurm_conf_changed" ]; then
    log "slurm.conf changed: reconfiguring"
    scontrol reconfigure
fi
wait_for 60 "slurmctld" scontrol ping
if ! running slurmd; then
    log "starting slurmd"
    slurmd
fi

node_ready() {
    local state
    state=$(sinfo -h -n "$HOST" -o '%T' 2>/dev/null | head -n1)
    case "$state" in
        idle|mixed|allocated|completing) return 0 ;;
        down*|drain*|fail*|inval*)
            # ReturnToService=2 revives a node that registers with a valid config; nudge once.
            scontrol update nodename="$HOST" state=resume >/dev/null 2>&1 || true
            return 1 ;;
        *) return 1 ;;
    esac
}
wait_for "$WAIT_SECONDS" "node $HOST to become idle in sinfo (see /var/log/slurm/slurmd.log)" node_ready
wait_for 30 "sacct" sacct -n -X --starttime now-1minute
log "cluster $CLUSTER_NAME up: partition $PARTITION, node $HOST (${NCPU} CPUs, ${REAL_MEM} MB)"
sinfo
