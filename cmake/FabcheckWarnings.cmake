# Warning flags shared by every fabcheck target; CXX only, so nvcc is not handed g++ flags.
function(fabcheck_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wconversion -Wno-sign-conversion>)
  if(FABCHECK_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>
                                             $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
endfunction()
