# Checks that what root reads or writes is root's (or this user's) and closed to everyone else.
# Source this file, then call:
#   closed_folders PATH      every folder from / down to PATH (PATH itself included when it is a
#                            folder) is owned by root or this user, is no link, and is writable by
#                            no one else, or is sticky (as /tmp: others cannot rename our files);
#                            prints why not and fails.
#   open_closed_file VAR PATH   opens PATH once for reading (fd number in VAR) and checks the open
#                            file itself (/proc/self/fd): a regular file owned by root or this
#                            user, writable by no one else, reached by PATH with no link, and
#                            closed_folders on its folder; else sets closed_why and fails (no fd
#                            left open). Not in a subshell: the descriptor is the caller's.
# The checks are of the folder chain and of the file actually opened, so swapping the file after
# the check changes nothing: what is read is what was checked.
_closed_owner_ok() { [ "$1" = 0 ] || [ "$1" = "$(id -u)" ]; }

closed_folders() {
  local path="$1" walk="" part owner mode
  [[ "$path" == /* ]] || { echo "$path: not an absolute path"; return 1; }
  local -a parts
  IFS=/ read -r -a parts <<<"${path#/}"
  local chain=(/)
  for part in "${parts[@]}"; do
    [ -n "$part" ] || continue
    [ "$part" != . ] && [ "$part" != .. ] || { echo "$path: has . or .. in it"; return 1; }
    walk="$walk/$part"
    chain+=("$walk")
  done
  for walk in "${chain[@]}"; do
    [ -e "$walk" ] || [ -L "$walk" ] || break  # what does not exist yet is made by us
    if [ -L "$walk" ]; then echo "$walk: a link (in $path)"; return 1; fi
    [ -d "$walk" ] || { [ "$walk" = "$path" ] && break; echo "$walk: not a folder"; return 1; }
    owner="$(stat -c %u -- "$walk")" mode="$(stat -c %a -- "$walk")"
    _closed_owner_ok "$owner" || { echo "$walk: owned by uid $owner, not by root or this user"; return 1; }
    if (((8#$mode & 8#022) != 0)) && (((8#$mode & 8#1000) == 0)); then
      echo "$walk: writable by group or others (mode $mode)"
      return 1
    fi
  done
  return 0
}

open_closed_file() {
  local var="$1" path="$2" _fd why owner mode real
  [[ "$path" == /* ]] || { closed_why="$path: not an absolute path"; return 1; }
  why="$(closed_folders "$(dirname -- "$path")")" || { closed_why="$why"; return 1; }
  if [ -L "$path" ]; then closed_why="$path: a link"; return 1; fi
  # A FIFO or a device would block or never end: refused before it is opened.
  [ -f "$path" ] || { closed_why="$path: not a regular file"; return 1; }
  [ -r "$path" ] || { closed_why="$path: not readable"; return 1; }
  # (no 2>/dev/null here: on exec without a command it would silence the whole script)
  exec {_fd}<"$path" || { closed_why="$path: cannot be opened"; return 1; }
  real="$(readlink "/proc/$BASHPID/fd/$_fd")"
  owner="$(stat -L -c %u "/proc/$BASHPID/fd/$_fd")"
  mode="$(stat -L -c %a "/proc/$BASHPID/fd/$_fd")"
  if [ "$real" != "$path" ]; then
    why="$path: reached through a link or a changed folder (opened $real)"
  elif [ ! -f "/proc/$BASHPID/fd/$_fd" ]; then
    why="$path: not a regular file"
  elif ! _closed_owner_ok "$owner"; then
    why="$path: owned by uid $owner, not by root or this user"
  elif (((8#$mode & 8#022) != 0)); then
    why="$path: writable by group or others (mode $mode)"
  elif ! why="$(closed_folders "$(dirname -- "$path")")"; then
    :
  else
    printf -v "$var" "%s" "$_fd"
    return 0
  fi
  exec {_fd}<&-
  closed_why="$why"
  return 1
}
