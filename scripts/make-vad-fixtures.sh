#!/usr/bin/env bash
# Makes the VAD fixtures in tests/fixtures/audio/vad/ (committed; tests read them, nothing runs this in
# a test). Needs espeak-ng and sox (Debian: apt-get install espeak-ng sox). 16 kHz mono 16-bit FLAC.
# Every phrase is trimmed of espeak's own leading/trailing silence, so the pauses are exactly the ones
# written here; sox -R makes the noise repeatable.
set -euo pipefail
out="$(cd "$(dirname "$0")/.." && pwd)/tests/fixtures/audio/vad"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
rate=16000

# phrase NAME "TEXT": espeak-ng at 150 words a minute, 16 kHz mono, its silences trimmed.
phrase() {
  espeak-ng -v en -s 150 -w "$tmp/$1.raw.wav" "$2"
  sox -R "$tmp/$1.raw.wav" -r $rate -c 1 -b 16 "$tmp/$1.wav" silence 1 0.02 0.5% reverse silence 1 0.02 0.5% reverse
}
# gap NAME SECONDS: digital silence.
gap() { sox -R -n -r $rate -c 1 -b 16 "$tmp/$1.wav" trim 0 "$2"; }

phrase a1 "The first answer is correct"
phrase a2 "but the working is missing"
phrase a3 "so it gets two marks out of three"
phrase b1 "Question four is blank"
phrase c1 "Please see me after class"
gap s300 0.30
gap s350 0.35
gap s400 0.40
gap lead 1.0
gap tail 1.5
gap long 3.0
gap ten 10.0

# One sentence with pauses for breath (300 and 400 ms) inside it.
sox -R "$tmp"/{lead,a1,s300,a2,s400,a3,tail}.wav "$out/breath-pauses.flac"
# Two sentences three seconds apart.
sox -R "$tmp"/{lead,b1,s350,c1,long,a1,tail}.wav "$out/two-sentences.flac"
# Ten seconds of silence, then speech: its transcript must keep the original times.
sox -R "$tmp"/{ten,b1,s300,c1,tail}.wav "$out/late-speech.flac"
# Speech with low background noise (pink noise about -47 dBFS RMS) all through, a long pause in the middle.
sox -R "$tmp"/{lead,a1,s300,a2,long,c1}.wav "$tmp/clean.wav"
length=$(soxi -D "$tmp/clean.wav")
sox -R -n -r $rate -c 1 -b 16 "$tmp/noise-bed.wav" synth "$length" pinknoise vol 0.02
sox -R -m "$tmp/clean.wav" "$tmp/noise-bed.wav" "$out/noisy-speech.flac"
# No speech: four seconds of the same kind of noise, louder (about -38 dBFS RMS: the old energy gate's "voice").
sox -R -n -r $rate -c 1 -b 16 "$out/noise.flac" synth 4 pinknoise vol 0.06

# Where the speech is, for the tests (seconds, from the trimmed phrases' lengths).
{
  for f in a1 a2 a3 b1 c1; do printf '%s %s\n' "$f" "$(soxi -D "$tmp/$f.wav")"; done
} > "$out/phrase-seconds.txt"
ls -l "$out"
