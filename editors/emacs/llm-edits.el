;;; llm-edits.el --- Apply an LLM response's edit blocks through eglot  -*- lexical-binding: t; -*-

;; Commands for the llm-edits language server (python -m lsp_server) run through eglot:
;;
;;   M-x llm-edits-apply      apply the response in the region (or the whole buffer)
;;   M-x llm-edits-preview    show the proposed changes as a unified diff (nothing changes)
;;   M-x llm-edits-feedback   put retry feedback for the model on the kill ring
;;
;; Setup (see docs/editors.md): make eglot start the server for the modes of your project files,
;; connect with M-x eglot in one of them, then run the commands from any buffer of the project:
;;
;;   (add-to-list 'eglot-server-programs
;;                '((python-mode python-ts-mode) . ("python3" "-m" "lsp_server")))
;;   (load "/path/to/llm-edits/editors/emacs/llm-edits.el")

;;; Code:

(require 'eglot)
(require 'project)
(require 'seq)
(require 'subr-x)

(defgroup llm-edits nil
  "Apply an LLM response's edit blocks through the llm-edits language server."
  :group 'tools)

(defcustom llm-edits-options nil
  "Options sent with every llm-edits command, a plist.
For example (:matching \"whitespace\" :atomic t); see docs/commands.md."
  :type 'plist)

(defun llm-edits--server ()
  "The eglot server for the current buffer, or else for the current project."
  (or (eglot-current-server)
      (when-let ((project (project-current)))
        (car (gethash project eglot--servers-by-project)))
      (user-error "No eglot server: open a project file and connect llm-edits with M-x eglot")))

(defun llm-edits--response (beg end)
  "The response text between BEG and END, or the whole buffer when they are nil."
  (buffer-substring-no-properties (or beg (point-min)) (or end (point-max))))

(defun llm-edits--region-or-buffer ()
  "Interactive arguments: the active region, or nil for the whole buffer."
  (if (use-region-p) (list (region-beginning) (region-end)) (list nil nil)))

(defun llm-edits-run (command response &optional options)
  "Run llm-edits COMMAND with RESPONSE text and OPTIONS (a plist); return the result plist.
The call is synchronous; eglot applies the edit the server sends meanwhile (it may ask
for confirmation, see `eglot-confirm-server-initiated-edits' / `eglot-confirm-server-edits')."
  (let ((server (llm-edits--server))
        (merged (append options llm-edits-options))
        (argument (list :response response)))
    (when merged
      (setq argument (append argument (list :options merged))))
    ;; eglot sends didChange on an idle timer: send what is pending now, so the server plans
    ;; against what the buffers show, unsaved changes included.
    (dolist (buffer (eglot--managed-buffers server))
      (with-current-buffer buffer
        (eglot--signal-textDocument/didChange)))
    (eglot-execute-command server command (vector argument))))

(defun llm-edits--summary (result)
  "A one-line summary of RESULT's block statuses."
  (let ((counts nil))
    (seq-doseq (block (plist-get result :blocks))
      (let ((status (plist-get block :status)))
        (setf (alist-get status counts 0 nil #'equal)
              (1+ (alist-get status counts 0 nil #'equal)))))
    (if counts
        (mapconcat (lambda (count) (format "%d %s" (cdr count) (car count)))
                   (nreverse counts) ", ")
      "no edit blocks found")))

(defun llm-edits-apply (beg end)
  "Apply the LLM response in the region (or the whole buffer) to the project.
Failed blocks are published as diagnostics (Flymake) in their files."
  (interactive (llm-edits--region-or-buffer))
  (let ((result (llm-edits-run "llmEdits.apply" (llm-edits--response beg end))))
    (message "llm-edits: %s%s" (llm-edits--summary result)
             (if (eq (plist-get result :applied) :json-false) " (the edit was not applied)" ""))
    result))

(defun llm-edits--path (uri)
  "The file name of URI (eglot's public function where it has one)."
  (if (fboundp 'eglot-uri-to-path) (eglot-uri-to-path uri) (eglot--uri-to-path uri)))

(defun llm-edits--diff (file)
  "A unified diff of FILE's oldText and newText (FILE is one entry of a result's files)."
  (let ((old (make-temp-file "llm-edits-old"))
        (new (make-temp-file "llm-edits-new"))
        (label (file-relative-name (llm-edits--path (or (plist-get file :newUri)
                                                       (plist-get file :uri))))))
    (unwind-protect
        (progn
          (with-temp-file old (insert (or (plist-get file :oldText) "")))
          (with-temp-file new (insert (or (plist-get file :newText) "")))
          (with-temp-buffer
            (call-process "diff" nil t nil "-u" "--label" (concat "a/" label)
                          "--label" (concat "b/" label) old new)
            (buffer-string)))
      (delete-file old)
      (delete-file new))))

(defun llm-edits-preview (beg end)
  "Show what the LLM response in the region (or the whole buffer) would change."
  (interactive (llm-edits--region-or-buffer))
  (let* ((root (project-root (project-current t)))
         (result (llm-edits-run "llmEdits.preview" (llm-edits--response beg end)
                                '(:includeText t)))
         (buffer (get-buffer-create "*llm-edits preview*")))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (setq default-directory root)
        (seq-doseq (file (plist-get result :files))
          (insert (llm-edits--diff file))))
      (diff-mode)
      (setq buffer-read-only t))
    (display-buffer buffer)
    (message "llm-edits preview: %s" (llm-edits--summary result))
    result))

(defun llm-edits-feedback (beg end)
  "Put retry feedback for the model about the response in the region/buffer on the kill ring."
  (interactive (llm-edits--region-or-buffer))
  (let* ((result (llm-edits-run "llmEdits.feedback" (llm-edits--response beg end)))
         (text (plist-get result :text)))
    (kill-new text)
    (message "llm-edits: retry feedback (%d lines) is on the kill ring"
             (length (split-string text "\n")))
    text))

(provide 'llm-edits)
;;; llm-edits.el ends here
