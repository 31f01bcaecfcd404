module github.com/trustelem/zxcvbn
