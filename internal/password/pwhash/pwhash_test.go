package pwhash

import (
	"errors"
	"strings"
	"testing"
)

// tiny is a test cost: argon2id's minimum memory for one lane.
var tiny = Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1}

func TestArgon2idRoundTrip(t *testing.T) {
	t.Parallel()
	h, err := Hash(t.Context(), "correct horse battery staple", tiny)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") || Kind(h) != "argon2id" {
		t.Fatalf("hash %q is not an argon2id PHC string", h)
	}
	h2, _ := Hash(t.Context(), "correct horse battery staple", tiny)
	if h == h2 {
		t.Fatal("two hashes of one password are equal: the salt is not random")
	}
	for pw, want := range map[string]bool{"correct horse battery staple": true, "Correct horse battery staple": false, "": false} {
		if ok, err := Verify(t.Context(), h, pw); err != nil || ok != want {
			t.Errorf("Verify(%q) = %v, %v; want %v", pw, ok, err, want)
		}
	}
}

// Vectors computed by independent implementations: the argon2 reference
// README, the OpenBSD bcrypt test suite, and Python's hashlib (scrypt,
// PBKDF2, and the salted digests: hashlib.md5(b"pep$per" + b"password" +
// b"sa:lt")), so a wrong parameter order here cannot hide.
var vectors = []struct {
	name, hash, password, kind string
}{
	{"argon2i reference", "$argon2i$v=19$m=65536,t=2,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG", "password", "argon2i"},
	{"bcrypt openbsd", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", "U*U", "bcrypt"},
	{"scrypt hashlib", "$scrypt$ln=10,r=8,p=16$TmFDbC1hbmQtcGVwcGVyIQ$upmwwuX950iBeXnAdoSUDNoxYhK5VVP0IllQJkkiGe+9PUhZgBtWztOl8OwTVpUbsDWQhINqe5YVm1vfaeOwzQ", "password", "scrypt"},
	{"pbkdf2-sha1 hashlib", "$pbkdf2-sha1$i=4096$c2FsdFNBTFRzYWx0U0FMVHNhbHRTQUxUc2FsdFNBTFRzYWx0$PS7sT+QchJuAyNg2YsDkSospGpY", "passwordPASSWORDpassword", "pbkdf2-sha1"},
	{"pbkdf2-sha256 hashlib", "$pbkdf2-sha256$i=4096$c2FsdFNBTFRzYWx0U0FMVHNhbHRTQUxUc2FsdFNBTFRzYWx0$NIyJ28vTKy8y2BS4EW6EzysXNH68GAAYHE4qH7jdU+E", "passwordPASSWORDpassword", "pbkdf2-sha256"},
	{"pbkdf2-sha512 hashlib", "$pbkdf2-sha512$i=4096$c2FsdFNBTFRzYWx0U0FMVHNhbHRTQUxUc2FsdFNBTFRzYWx0$jAUR9Mbll8asYxXY8DYuIl88UBSVuiO4aMAFF03E7nERW1n55gzZUy+jPg91rv4wIlxYOhhs2CvU2uqXJKPTuA", "passwordPASSWORDpassword", "pbkdf2-sha512"},
	{"md5 salted hashlib", "$digest-md5$cGVwJHBlcg$c2E6bHQ$M31FFEX4LK8Qaa67zZKerQ", "password", "md5"},
	{"md5 unsalted hashlib", "$digest-md5$$$X03MO1qnZdYdgyfeuILPmQ", "password", "md5"},
	{"sha1 salted hashlib", "$digest-sha1$cGVwJHBlcg$c2E6bHQ$Ncf9S/ivCodgxcPj6TFDDXbUn4Y", "password", "sha1"},
	{"sha512 salted hashlib", "$digest-sha512$cGVwJHBlcg$c2E6bHQ$567i2IOpBR9vwZDCsSXM4OC4YGg+UmRiJ96NHZPB4YDCeRrJJHJKxlLgHAeaG86POl3ij9fQyKIcTB2zZ8v/uQ", "password", "sha512"},
	{"sha512 unsalted hashlib", "$digest-sha512$$$sQnzu7wkTrgkQZF+0G1hi5AI3Qmzvv0bXgc5THBqi7mAsdd4Xll27ASbRt9fEyavWi6m0QP9B8lThf+rDKy8hg", "password", "sha512"},
}

func TestKnownVectors(t *testing.T) {
	t.Parallel()
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			if k := Kind(v.hash); k != v.kind {
				t.Fatalf("Kind = %q, want %q", k, v.kind)
			}
			if ok, err := Verify(t.Context(), v.hash, v.password); err != nil || !ok {
				t.Fatalf("right password: %v, %v", ok, err)
			}
			if ok, err := Verify(t.Context(), v.hash, v.password+"x"); err != nil || ok {
				t.Fatalf("wrong password: %v, %v", ok, err)
			}
			if !NeedsUpgrade(v.hash, tiny) {
				t.Fatal("an imported format does not ask for an upgrade")
			}
		})
	}
}

func TestNeedsUpgrade(t *testing.T) {
	t.Parallel()
	cur := Params{MemoryKiB: 128, Iterations: 2, Parallelism: 1}
	same, _ := Hash(t.Context(), "pw", cur)
	stronger, _ := Hash(t.Context(), "pw", Params{MemoryKiB: 256, Iterations: 3, Parallelism: 2})
	weakerM, _ := Hash(t.Context(), "pw", Params{MemoryKiB: 64, Iterations: 2, Parallelism: 1})
	weakerT, _ := Hash(t.Context(), "pw", Params{MemoryKiB: 128, Iterations: 1, Parallelism: 1})
	for name, c := range map[string]struct {
		h    string
		want bool
	}{"same cost": {same, false}, "stronger": {stronger, false}, "less memory": {weakerM, true},
		"fewer iterations": {weakerT, true}, "argon2i": {vectors[0].hash, true}, "garbage": {"nope", true}} {
		if got := NeedsUpgrade(c.h, cur); got != c.want {
			t.Errorf("%s: NeedsUpgrade = %v, want %v", name, got, c.want)
		}
	}
}

func TestMalformed(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"", "plaintext", "$argon2id$v=16$m=64,t=1,p=1$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG",
		"$argon2id$v=19$m=64,t=1$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG",
		"$argon2id$v=19$m=4194304,t=1,p=1$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG", // 4 GiB: refused
		"$argon2id$v=19$m=64,t=1,p=1$c2FsdA$RdescudvJCsgt3ub+b+dWRWJTmaaJObG",           // 4-byte salt
		"$2a$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",                  // cost 31
		"$scrypt$ln=30,r=8,p=1$TmFDbC1hbmQtcGVwcGVyIQ$upmwwuX950iBeXnAdoSUDNoxYhK5VVP0IllQJkkiGe8",
		"$scrypt$ln=20,r=32,p=1$TmFDbC1hbmQtcGVwcGVyIQ$upmwwuX950iBeXnAdoSUDNoxYhK5VVP0IllQJkkiGe8", // 4 GiB: refused
		"$pbkdf2-md5$i=1$c2FsdFNBTFRzYWx0U0FMVA$PS7sT+QchJuAyNg2YsDkSospGpY",
		"$pbkdf2-sha256$i=0$c2FsdFNBTFRzYWx0U0FMVA$PS7sT+QchJuAyNg2YsDkSospGpY",
		"$digest-md5$$$Ncf9S/ivCodgxcPj6TFDDXbUn4Y", // a SHA-1 sized digest
		"$digest-sha256$$$X03MO1qnZdYdgyfeuILPmQ",   // no such digest
		"$digest-md5$c2FsdA$X03MO1qnZdYdgyfeuILPmQ", // one salt only
		"$digest-md5$!!$$X03MO1qnZdYdgyfeuILPmQ",    // salt not base64
		"$digest-md5$$$" + strings.Repeat("A", 22) + "$"} {
		if ok, err := Verify(t.Context(), h, "password"); ok || !errors.Is(err, ErrMalformed) {
			t.Errorf("Verify(%q) = %v, %v; want ErrMalformed", h, ok, err)
		}
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   Import
		want string // "" means an error is expected
	}{
		{"bcrypt", Import{HashType: "bcrypt", Hash: vectors[1].hash}, vectors[1].hash},
		{"argon2i phc", Import{HashType: "argon_2i", Hash: vectors[0].hash}, vectors[0].hash},
		{"argon2i raw+config", Import{HashType: "argon_2i", Hash: "RdescudvJCsgt3ub+b+dWRWJTmaaJObG",
			Argon2: &Argon2Config{Salt: "somesalt", IterationAmount: 2, Memory: 65536, Threads: 4, KeyLength: 24}}, vectors[0].hash},
		{"argon2 type mismatch", Import{HashType: "argon_2id", Hash: vectors[0].hash}, ""},
		{"scrypt raw+config", Import{HashType: "scrypt", Hash: "upmwwuX950iBeXnAdoSUDNoxYhK5VVP0IllQJkkiGe+9PUhZgBtWztOl8OwTVpUbsDWQhINqe5YVm1vfaeOwzQ==",
			Scrypt: &ScryptConfig{Salt: "TmFDbC1hbmQtcGVwcGVyIQ==", NParameter: 1024, RParameter: 8, PParameter: 16, KeyLength: 64}}, vectors[2].hash},
		{"scrypt N not a power of two", Import{HashType: "scrypt", Hash: "upmwwuX950iBeXnAdoSUDNoxYhK5VVP0IllQJkkiGe8",
			Scrypt: &ScryptConfig{Salt: "TmFDbC1hbmQtcGVwcGVyIQ", NParameter: 1000, RParameter: 8, PParameter: 1}}, ""},
		{"pbkdf2 default sha256", Import{HashType: "pbkdf_2", Hash: "NIyJ28vTKy8y2BS4EW6EzysXNH68GAAYHE4qH7jdU-E",
			PBKDF2: &PBKDF2Config{Salt: "c2FsdFNBTFRzYWx0U0FMVHNhbHRTQUxUc2FsdFNBTFRzYWx0", IterationAmount: 4096, KeyLength: 32}}, vectors[4].hash},
		{"pbkdf2 sha512", Import{HashType: "pbkdf_2", Hash: "jAUR9Mbll8asYxXY8DYuIl88UBSVuiO4aMAFF03E7nERW1n55gzZUy+jPg91rv4wIlxYOhhs2CvU2uqXJKPTuA",
			PBKDF2: &PBKDF2Config{Salt: "c2FsdFNBTFRzYWx0U0FMVHNhbHRTQUxUc2FsdFNBTFRzYWx0", IterationAmount: 4096, Algorithm: "SHA-512"}}, vectors[5].hash},
		{"pbkdf2 wrong key length", Import{HashType: "pbkdf_2", Hash: "PS7sT+QchJuAyNg2YsDkSospGpY",
			PBKDF2: &PBKDF2Config{Salt: "c2FsdFNBTFRzYWx0U0FMVHNhbHRTQUxUc2FsdFNBTFRzYWx0", IterationAmount: 4096, KeyLength: 32, Algorithm: "sha1"}}, ""},
		{"missing config", Import{HashType: "scrypt", Hash: "abcd"}, ""},
		{"md5 hex + config", Import{HashType: "md_5", Hash: "337d451445f82caf1069aebbcd929ead",
			MD5: &SaltConfig{PrependSalt: "pep$per", AppendSalt: "sa:lt"}}, vectors[6].hash},
		{"md5 no config", Import{HashType: "md_5", Hash: " 5f4dcc3b5aa765d61d8327deb882cf99 "}, vectors[7].hash},
		{"sha1 upper-case hex", Import{HashType: "sha_1", Hash: "35C7FD4BF8AF0A8760C5C3E3E931430D76D49F86",
			SHA1: &SaltConfig{PrependSalt: "pep$per", AppendSalt: "sa:lt"}}, vectors[8].hash},
		{"sha512 hex + config", Import{HashType: "sha_512", Hash: "e7aee2d883a9051f6fc190c2b125cce0e0b860683e52646227de8d1d93c1e180c2791ac924724ac652e01c079a1bce8f3a5de28fd7d0c8a21c4c1db367cbffb9",
			SHA512: &SaltConfig{PrependSalt: "pep$per", AppendSalt: "sa:lt"}}, vectors[9].hash},
		// Each type's own config: an md_5 import ignores a sha_1_config.
		{"md5 other type's config", Import{HashType: "md_5", Hash: "5f4dcc3b5aa765d61d8327deb882cf99",
			SHA1: &SaltConfig{PrependSalt: "x"}}, vectors[7].hash},
		{"md5 as base64", Import{HashType: "md_5", Hash: "X03MO1qnZdYdgyfeuILPmQ=="}, ""},
		{"md5 sha1-length hex", Import{HashType: "md_5", Hash: "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8"}, ""},
		{"sha1 not hex", Import{HashType: "sha_1", Hash: "zbaa61e4c9b93f3f0682250b6cf8331b7ee68fd8"}, ""},
		{"sha512 salt too long", Import{HashType: "sha_512", Hash: "b109f3bbbc244eb82441917ed06d618b9008dd09b3befd1b5e07394c706a8bb980b1d7785e5976ec049b46df5f1326af5a2ea6d103fd07c95385ffab0cacbc86",
			SHA512: &SaltConfig{AppendSalt: strings.Repeat("s", 1025)}}, ""},
		{"unknown type", Import{HashType: "sha_256", Hash: "5f4dcc3b5aa765d61d8327deb882cf99"}, ""},
		{"empty", Import{HashType: "bcrypt"}, ""},
	}
	for _, c := range cases {
		got, err := Normalize(c.in)
		if c.want == "" {
			if err == nil || !errors.Is(err, ErrMalformed) {
				t.Errorf("%s: got %q, %v; want ErrMalformed", c.name, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

func TestParamsValidate(t *testing.T) {
	t.Parallel()
	if err := OWASP.Validate(); err != nil {
		t.Fatalf("OWASP: %v", err)
	}
	for _, p := range []Params{{MemoryKiB: 7, Iterations: 1, Parallelism: 1}, {MemoryKiB: 64, Iterations: 0, Parallelism: 1},
		{MemoryKiB: 64, Iterations: 1, Parallelism: 0}, {MemoryKiB: 16, Iterations: 1, Parallelism: 4}} {
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
		if _, err := Hash(t.Context(), "x", p); err == nil {
			t.Errorf("Hash accepted %+v", p)
		}
	}
}

// The timing equaliser: a well-formed hash at the configured cost that no
// password matches, made without hashing.
func TestDummyHasTheCostAndMatchesNothing(t *testing.T) {
	d, err := Dummy(tiny)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("dummy = %q, want argon2id at the given cost", d)
	}
	for _, pw := range []string{"", "password", "latchkey timing equaliser"} {
		if ok, err := Verify(t.Context(), d, pw); ok || err != nil {
			t.Fatalf("Verify(dummy, %q) = %v, %v", pw, ok, err)
		}
	}
	if _, err := Dummy(Params{}); err == nil {
		t.Fatal("Dummy accepted a zero cost")
	}
}
