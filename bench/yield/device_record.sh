# Shared by the yield probes' run_device.sh scripts (source it): what the GPU was doing around a run.
#   device_before          records nvidia-smi and the start time
#   device_after OUT.json  records them again and writes OUT.json (start, end, nvidia-smi before/after,
#                          kernel), then prints the two nvidia-smi lines
DEVICE_FIELDS=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw
device_smi() { nvidia-smi --query-gpu=$DEVICE_FIELDS --format=csv,noheader; }
device_before() {
  DEVICE_BEFORE=$(device_smi)
  DEVICE_START=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
}
device_after() {
  local after end
  after=$(device_smi)
  end=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
  python3 - "$1" "$DEVICE_START" "$end" "$DEVICE_BEFORE" "$after" "$(uname -r)" "$DEVICE_FIELDS" <<'PY'
import json, sys
out, start, end, before, after, kernel, fields = sys.argv[1:8]
json.dump({"start": start, "end": end, "nvidia_smi_before": before, "nvidia_smi_after": after, "kernel": kernel,
           "nvidia_smi_fields": fields}, open(out, "w"), indent=1)
PY
  echo "before: $DEVICE_BEFORE"
  echo "after:  $after"
}
