! A Fortran program calling SGEMM through the shim: the compiler passes TRANSA/TRANSB with their
! hidden lengths ('Transpose', 'n'), and a bad argument reaches this program's own XERBLA with the
! reference position and the routine name blank-padded to 6. Stops with code 1 on a mismatch.
module recorded
  implicit none
  integer :: xerbla_calls = 0, xerbla_info = 0, xerbla_len = 0
  character(len=16) :: xerbla_name = ''
end module recorded

subroutine xerbla(srname, info)
  use recorded
  implicit none
  character(len=*), intent(in) :: srname
  integer, intent(in) :: info
  xerbla_calls = xerbla_calls + 1
  xerbla_info = info
  xerbla_len = len(srname)
  xerbla_name = srname
end subroutine xerbla

program fortran_sgemm
  use recorded
  implicit none
  integer, parameter :: m = 37, n = 23, k = 19, lda = k + 2, ldb = n + 1, ldc = m + 3
  real :: a(lda, m), b(ldb, k), c(ldc, n), c0(ldc, n), bn(k + 1, n)
  double precision :: expect, err, worst
  real :: alpha, beta
  integer :: i, j, l, bad_m

  call random_number(a)
  call random_number(b)
  call random_number(bn)
  call random_number(c0)
  a = 2 * a - 1
  b = 2 * b - 1
  bn = 2 * bn - 1
  alpha = 1.5
  beta = -0.5

  ! op(A) = A**T (A is k x m), op(B) = B**T (B is n x k).
  c = c0
  call sgemm('Transpose', 'transpose', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
  worst = 0
  do j = 1, n
    do i = 1, m
      expect = beta * dble(c0(i, j))
      do l = 1, k
        expect = expect + alpha * dble(a(l, i)) * dble(b(j, l))
      end do
      worst = max(worst, abs(expect - c(i, j)))
    end do
    do i = m + 1, ldc
      if (c(i, j) /= c0(i, j)) stop 'padding of C changed'
    end do
  end do
  print '(a, es10.3)', 'TT max error ', worst
  if (worst > 1e-4) error stop 1

  ! op(A) = A**T, op(B) = B (k x n), lower-case 'n'.
  c = c0
  call sgemm('T', 'n', m, n, k, alpha, a, lda, bn, k + 1, 0.0, c, ldc)
  worst = 0
  do j = 1, n
    do i = 1, m
      expect = 0
      do l = 1, k
        expect = expect + alpha * dble(a(l, i)) * dble(bn(l, j))
      end do
      err = abs(expect - c(i, j))
      worst = max(worst, err)
    end do
  end do
  print '(a, es10.3)', 'TN max error ', worst
  if (worst > 1e-4) error stop 1

  ! An invalid LDC: this program's XERBLA gets ('SGEMM ', 13) and C is untouched.
  c = c0
  bad_m = ldc + 1
  call sgemm('N', 'N', bad_m, n, k, alpha, a, bad_m, b, k, beta, c, ldc)
  print '(a, i0, a, a, a, i0)', 'xerbla info ', xerbla_info, ' name "', xerbla_name(1:xerbla_len), '" len ', xerbla_len
  if (xerbla_calls /= 1 .or. xerbla_info /= 13) error stop 1
  if (xerbla_len /= 6 .or. xerbla_name(1:6) /= 'SGEMM ') error stop 1
  if (any(c /= c0)) error stop 1
  print '(a)', 'PASS'
end program fortran_sgemm
