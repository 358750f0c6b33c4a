# The SDC chains (bench/sdc/sdc_chain.hpp) computed independently in exact arithmetic: the
# constants of sdc_chain_test.cpp come from this script (python3 chain_reference.py).
from fractions import Fraction
import struct
M=(1<<64)-1
def rotl(x,r): return ((x<<r)|(x>>(64-r)))&M
def mix64(z):
    z=((z^(z>>30))*0xBF58476D1CE4E5B9)&M
    z=((z^(z>>27))*0x94D049BB133111EB)&M
    return z^(z>>31)
def block_seed(s,b): return mix64((s+(b+1)*0x9E3779B97F4A7C15)&M)
def int_step(x,i):
    x=(x*0xD1342543DE82EF95 + (((i*0x9E3779B97F4A7C15)&M)|1))&M
    x^=x>>29
    return rotl(x,23)
def int_chain(seed,steps):
    x=seed
    for i in range(steps): x=int_step(x,i)
    return x
def signed(x): return x-(1<<64) if x>>63 else x
def unit_double(bits): return Fraction(signed(bits)>>11, 1<<52)
def dbits(f): return struct.unpack('<Q',struct.pack('<d',float(f)))[0]
def fold(h,b): return ((h^b)*0x100000001B3)&M
def fp64_chain(seed,steps):
    stream=seed; x=Fraction(float(unit_double(mix64(seed^0xF64))))
    h=0xCBF29CE484222325
    for i in range(steps):
        stream=int_step(stream,i)
        a=unit_double(stream); b=unit_double(rotl(stream,32))
        x=Fraction(float(x*a+b))   # the exact value rounded once: IEEE fusedMultiplyAdd
        h=fold(h,dbits(x))
    return h
def round_to_float32(q):
    """The binary32 nearest the exact rational q (ties to even), as an exact Fraction."""
    if q == 0:
        return Fraction(0)
    sign = -1 if q < 0 else 1
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length() - 24
    while q / Fraction(2) ** e >= 2 ** 24:
        e += 1
    while q / Fraction(2) ** e < 2 ** 23:
        e -= 1
    assert e >= -149, "subnormal: not expected in the chain"
    m = q / Fraction(2) ** e
    whole = m.numerator // m.denominator
    rest = m - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2 == 1):
        whole += 1
    return sign * whole * Fraction(2) ** e
def unit_float(bits):
    top = (bits >> 32) & 0xFFFFFFFF
    top = top - (1 << 32) if top >> 31 else top
    return Fraction(top >> 8, 1 << 23)
def fbits(f):
    return struct.unpack('<I', struct.pack('<f', float(f)))[0]  # exact: f is a binary32
def fp32_chain(seed, steps):
    stream = seed ^ 0xF32F32F32; x = unit_float(mix64(seed ^ 0xF32))
    h = 0xCBF29CE484222325
    for i in range(steps):
        stream = int_step(stream, i)
        a = unit_float(stream); b = unit_float(rotl(stream, 32))
        x = round_to_float32(x * a + b)   # one rounding to binary32: fusedMultiplyAdd
        h = fold(h, fbits(x))
    return h
# CRC32C, table-driven (a different algorithm from the header's bit loop)
T=[]
for n in range(256):
    c=n
    for _ in range(8): c=(c>>1)^0x82F63B78 if c&1 else c>>1
    T.append(c)
def crc32c(data):
    c=0xFFFFFFFF
    for byte in data: c=T[(c^byte)&0xFF]^(c>>8)
    return c^0xFFFFFFFF
assert crc32c(b"123456789")==0xE3069283
def crc_stream(seed,words):
    data=b''.join(struct.pack('<Q',mix64(seed^((0xC3C3C3C3+i)&M))) for i in range(words))
    return crc32c(data)
s=block_seed(1,0)
print("block_seed(1,0)=%#018x"%s)
print("int_step(1,0)=%#018x"%int_step(1,0))
print("int_chain(s,3)=%#018x"%int_chain(s,3))
print("int_chain(s,1000)=%#018x"%int_chain(s,1000))
print("fp64_chain(s,1)=%#018x"%fp64_chain(s,1))
print("fp64_chain(s,1000)=%#018x"%fp64_chain(s,1000))
print("fp32_chain(s,1)=%#018x"%fp32_chain(s,1))
print("fp32_chain(s,1000)=%#018x"%fp32_chain(s,1000))
print("crc_stream(s,4)=%#010x"%crc_stream(s,4))
print("crc_stream(s,1024)=%#010x"%crc_stream(s,1024))
print("crc 12345678 =%#010x"%crc32c(b"12345678"))
# The L2 pattern (bench/sdc/l2_pattern.hpp)
def l2_stream_word(seed,i): return mix64(seed^((0x12C0000000000000+i)&M))
def l2_slice_key(slice,i): return mix64((((slice+1)*0x9E3779B97F4A7C15)&M)^((i<<32)&M))
def l2_written_word(seed,slice,i): return l2_stream_word(seed,i)^l2_slice_key(slice,i)
def l2_digest(seed,words):
    h=0xCBF29CE484222325
    for i in range(words): h=fold(h,l2_stream_word(seed,i))
    return h
print("l2_stream_word(s,0)=%#018x"%l2_stream_word(s,0))
print("l2_slice_key(9,0)=%#018x"%l2_slice_key(9,0))
print("l2_written_word(s,9,3)=%#018x"%l2_written_word(s,9,3))
print("l2_digest(s,1)=%#018x"%l2_digest(s,1))
print("l2_digest(s,32)=%#018x"%l2_digest(s,32))
